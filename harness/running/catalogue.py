"""The scenario catalogue: every scenario file under harness/scenarios/, and which env runs which.

A file whose name starts with ``_`` is a helper module, not a scenario. A scenario applies to an
environment when they share an API family (``any`` applies everywhere).
"""
from __future__ import annotations

import fnmatch
from pathlib import Path

from harness.common.errors import UsageError, suggest
from harness.common.meta import SCENARIOS_DIR
from harness.definitions.config import EnvDef
from harness.measurement import scenario
from harness.measurement.scenario import Scenario

SCENARIO_ROOT = SCENARIOS_DIR


def discover(root: Path = SCENARIO_ROOT) -> list[Scenario]:
    found = [scenario.load(path) for path in sorted(root.glob("*/*.py")) if not path.name.startswith("_")]
    return [variant for item in found for variant in scenario.expand(item)]


def select(scenarios: list[Scenario], patterns: list[str] | None) -> list[Scenario]:
    """Scenarios whose name (``family/name``) matches any glob; UsageError when a glob matches none."""
    if not patterns:
        return scenarios
    chosen: list[Scenario] = []
    for pattern in patterns:
        hits = [s for s in scenarios if fnmatch.fnmatch(s.name, pattern) or fnmatch.fnmatch(s.name.split("/")[-1], pattern)]
        if not hits:
            raise UsageError(f"no scenario matches {pattern!r}{suggest(pattern, [s.name for s in scenarios])}")
        chosen.extend(s for s in hits if s not in chosen)
    return chosen


def applies(env: EnvDef, item: Scenario) -> bool:
    return any(item.applies_to(family) for family in env.family)


def plan(envs: list[EnvDef], scenarios: list[Scenario]) -> list[tuple[EnvDef, Scenario]]:
    return [(env, item) for env in envs for item in scenarios if applies(env, item)]


def no_overlap(envs: list[EnvDef], chosen: list[Scenario]) -> str:
    """One line for filters that leave no cell: which families each side has, and where they meet."""
    from harness.definitions import config

    families = sorted({f for item in chosen for f in item.families})
    fitting = [env.name for env in config.load_environments().values() if any(applies(env, i) for i in chosen)]
    return (f"no cell to run: the environments asked for ({', '.join(e.name for e in envs)}) run none of the "
            f"{len(chosen)} scenario(s) asked for (API families {', '.join(families)}); those run in "
            f"{', '.join(fitting) or 'no environment defined here'}: name one of them with --env, or other scenarios")


def unfit(envs: list[EnvDef], chosen: list[Scenario]) -> dict[str, str]:
    """Environments (of known frameworks) that run none of ``chosen``, each with why: a script that
    imports torch asked to run in tf2.7 is said to be skipped, never silently left out."""
    out = {}
    for env in envs:
        if env.family and not any(applies(env, item) for item in chosen):
            needs = sorted({f for item in chosen for f in item.families})
            out[env.name] = (f"does not fit: the script needs {', '.join(needs)}; {env.name} has "
                             f"{', '.join(env.family)}")
    return out

