"""A scenario file's ``META = {...}`` literal, read with ``ast``: the host never runs scenario code."""
from __future__ import annotations

import ast
import functools
from pathlib import Path
from typing import Any, cast

from typing_extensions import TypedDict

SCENARIOS_DIR = Path(__file__).resolve().parents[1] / "scenarios"  # the shipped scenarios: <family>/<name>.py


class ScenarioMeta(TypedDict, total=False):
    """A scenario's META as its file writes it (measurement/scenario.load refuses a key not named here)."""

    families: list[str]
    technique: str
    seed: str | None
    params: dict[str, Any]
    env: dict[str, Any]
    timeout: float
    cleanup: list[str]
    title: str
    variants: dict[str, dict[str, Any]]
    cpu_params: dict[str, Any]
    meter: str | None
    gpu_only: str  # why the scenario shows nothing without a GPU
    since: dict[str, list[str]]  # framework -> [its first release with what the scenario uses, what that is]


def literal_meta(tree: ast.Module) -> Any:
    """The value of the module's ``META`` assignment (ValueError when it is not a literal), or None."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "META" for t in node.targets):
            return ast.literal_eval(node.value)
    return None


@functools.cache
def scenario_meta(name: str) -> ScenarioMeta:
    """The META the shipped scenario ``family/name[@variant]`` declares today ({} where it cannot be read):
    what the judge reads of a scenario by the name a record keeps (gpu_only, since)."""
    path = SCENARIOS_DIR / f"{name.split('@', 1)[0]}.py"
    try:
        meta = literal_meta(ast.parse(path.read_text(encoding="utf-8")))
    except (OSError, SyntaxError, ValueError):
        return {}
    return cast(ScenarioMeta, meta) if isinstance(meta, dict) else {}
