"""A mypy plugin: ``.get("key")`` on a TypedDict that has no such key is an error.

mypy checks ``record["key"]`` against a TypedDict but lets ``record.get("misspelt")`` through
(it returns ``object``, since a TypedDict may hold keys it does not name). The cell record is a
TypedDict read mostly through ``.get``, so without this a misspelt field passes the type check.
Every other ``.get`` is left to mypy's own handling, which this calls after checking.
"""
from __future__ import annotations

from collections.abc import Callable

from mypy.plugin import MethodContext, Plugin
from mypy.plugins.default import DefaultPlugin
from mypy.types import Instance, LiteralType, Type, TypedDictType, get_proper_type

MAPPING_GET = "typing.Mapping.get"


def _literal_key(ctx: MethodContext) -> str | None:
    if not ctx.arg_types or not ctx.arg_types[0]:
        return None
    key = get_proper_type(ctx.arg_types[0][0])
    literal = key.last_known_value if isinstance(key, Instance) else key
    return literal.value if isinstance(literal, LiteralType) and isinstance(literal.value, str) else None


class RecordKeys(Plugin):
    def get_method_hook(self, fullname: str) -> Callable[[MethodContext], Type] | None:
        if fullname != MAPPING_GET:
            return None
        default = DefaultPlugin(self.options).get_method_hook(fullname)

        def checked(ctx: MethodContext) -> Type:
            typed = get_proper_type(ctx.type)
            key = _literal_key(ctx)
            if isinstance(typed, TypedDictType) and key is not None and key not in typed.items:
                ctx.api.fail(f'TypedDict "{typed.fallback.type.name}" has no key "{key}"', ctx.context)
            return default(ctx) if default else ctx.default_return_type

        return checked


def plugin(version: str) -> type[Plugin]:
    return RecordKeys
