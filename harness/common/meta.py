"""A scenario file's ``META = {...}`` literal, read with ``ast``: the host never runs scenario code."""
from __future__ import annotations

import ast
import functools
from pathlib import Path
from typing import Any

SCENARIOS_DIR = Path(__file__).resolve().parents[1] / "scenarios"  # the shipped scenarios: <family>/<name>.py


def literal_meta(tree: ast.Module) -> Any:
    """The value of the module's ``META`` assignment (ValueError when it is not a literal), or None."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "META" for t in node.targets):
            return ast.literal_eval(node.value)
    return None


@functools.cache
def scenario_meta(name: str) -> dict[str, Any]:
    """The META the shipped scenario ``family/name[@variant]`` declares today ({} where it cannot be read):
    what the judge reads of a scenario by the name a record keeps (gpu_only, since)."""
    path = SCENARIOS_DIR / f"{name.split('@', 1)[0]}.py"
    try:
        meta = literal_meta(ast.parse(path.read_text(encoding="utf-8")))
    except (OSError, SyntaxError, ValueError):
        return {}
    return meta if isinstance(meta, dict) else {}
