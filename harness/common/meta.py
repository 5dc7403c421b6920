"""A scenario file's ``META = {...}`` literal, read with ``ast``: the host never runs scenario code."""
from __future__ import annotations

import ast
from typing import Any


def literal_meta(tree: ast.Module) -> Any:
    """The value of the module's ``META`` assignment (ValueError when it is not a literal), or None."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "META" for t in node.targets):
            return ast.literal_eval(node.value)
    return None
