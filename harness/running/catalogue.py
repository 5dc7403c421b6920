"""The scenario catalogue: every scenario file under harness/scenarios/, and which env runs which.

A file whose name starts with ``_`` is a helper module, not a scenario. A scenario applies to an
environment when they share an API family (``any`` applies everywhere).
"""
from __future__ import annotations

import fnmatch
from pathlib import Path

from harness.common.errors import UsageError, suggest
from harness.environments.config import EnvDef
from harness.measurement import scenario
from harness.measurement.scenario import Scenario

SCENARIO_ROOT = Path(__file__).resolve().parents[1] / "scenarios"


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
