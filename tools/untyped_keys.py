"""How many string-key reads in the host code go through untyped values: ``x["key"]`` and ``x.get("key")``
where mypy knows ``x`` only as ``Any``, ``object`` or a mapping of ``Any`` (a ``dict[str, Any]``), so a
misspelt or removed key fails nowhere. A read of a TypedDict (the record) is typed and not counted.

    python tools/untyped_keys.py [--by-module] [--list]

Reads the mypy configuration of pyproject.toml (its files and plugins), as ``mypy`` does.
"""
from __future__ import annotations

import argparse
import functools
import sys
from collections import Counter

from mypy import build
from mypy.main import process_options
from mypy.nodes import Block, CallExpr, Expression, IndexExpr, MemberExpr, MypyFile, Statement, StrExpr
from mypy.types import AnyType, Instance, Type, TypedDictType, get_proper_type

MAPPINGS = {"builtins.dict", "typing.Mapping", "typing.MutableMapping", "collections.OrderedDict",
            "collections.defaultdict"}


# fields that point at a definition elsewhere (a name's function, another module's class), not at a child
REFERENCES = {"node", "info", "original_def", "definition", "def_var", "type_info", "var"}


def untyped(found: Type | None) -> bool:
    """Whether a read of a key from a value of this type is checked by nothing."""
    if found is None:
        return True
    value = get_proper_type(found)
    if isinstance(value, AnyType):
        return True
    if isinstance(value, TypedDictType):
        return False
    if isinstance(value, Instance):
        if value.type.fullname == "builtins.object":
            return True
        if value.type.fullname in MAPPINGS and value.args:
            return isinstance(get_proper_type(value.args[-1]), AnyType)
    return False


@functools.cache
def _fields(cls: type) -> tuple[str, ...]:
    """A node class's data fields (a compiled class keeps them as descriptors, not ``__slots__``)."""
    return tuple(name for klass in cls.__mro__ for name, value in vars(klass).items()
                 if type(value).__name__ in ("getset_descriptor", "member_descriptor") and not name.startswith("_")
                 and name not in REFERENCES)


def _expressions(tree: MypyFile) -> list[Expression]:
    """Every expression of a module, found by walking its statements' and expressions' fields (mypy's own
    visitors are compiled classes, which a script cannot extend)."""
    seen: set[int] = set()
    found: list[Expression] = []
    stack: list[object] = list(tree.defs)
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, Expression):
            found.append(node)
        for name in _fields(type(node)):
            try:
                value = getattr(node, name, None)
            except Exception:  # a computed property that does not apply to this node
                continue
            for item in value if isinstance(value, (list, tuple)) else (value,):
                if isinstance(item, (Statement, Expression, Block)):
                    stack.append(item)
    return found


def reads(tree: MypyFile, types: dict[Expression, Type], path: str) -> list[tuple[str, int, str]]:
    """The module's string-key reads on untyped values."""
    found = []
    for expr in _expressions(tree):
        if isinstance(expr, IndexExpr) and isinstance(expr.index, StrExpr) and untyped(types.get(expr.base)):
            found.append((path, expr.line, expr.index.value))
        elif (isinstance(expr, CallExpr) and isinstance(expr.callee, MemberExpr) and expr.callee.name == "get"
              and expr.args and isinstance(expr.args[0], StrExpr) and untyped(types.get(expr.callee.expr))):
            found.append((path, expr.line, expr.args[0].value))
    return sorted(found)


def count() -> list[tuple[str, int, str]]:
    sources, options = process_options([])  # the files and settings of pyproject.toml
    options.export_types = True
    options.incremental = False  # the trees, not the cache: every module is checked again
    options.preserve_asts = True
    result = build.build(sources=sources, options=options)
    found: list[tuple[str, int, str]] = []
    for name, state in sorted(result.graph.items()):
        if state.tree is None or not name.startswith("harness") or state.path is None:
            continue
        if any(source.module == name for source in sources):
            found += reads(state.tree, result.types, state.path)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--by-module", action="store_true")
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()
    found = count()
    if args.list:
        for path, line, key in found:
            print(f"{path}:{line}: {key}")
    if args.by_module:
        for path, n in Counter(path for path, _, _ in found).most_common():
            print(f"{n:5d} {path}")
    print(f"{len(found)} string-key reads on untyped values")
    return 0


if __name__ == "__main__":
    sys.exit(main())
