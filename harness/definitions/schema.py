"""The shape of matrix/environments.toml, checked as a whole before anything runs.

A JSON Schema (validated with jsonschema, which reports every problem rather than the first) so
that a missing ``family`` or ``packages = "jax==0.10.2"`` (a string pip would take letter by
letter) is one listed problem with its line, never a KeyError or a broken build. TOML parsers
keep no positions, so each problem's line is found from its key path in the text.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

from typing_extensions import Required, TypedDict

from harness import frameworks
from harness.common.errors import suggest

_TEXT = {"type": "string"}
_TEXTS = {"type": "array", "items": {"type": "string", "minLength": 1}}
VARIANT = {
    "type": "object", "additionalProperties": False, "required": ["base", "packages"],
    "properties": {"base": {"type": "string", "minLength": 1}, "packages": {**_TEXTS, "minItems": 1},
                   "index_url": _TEXT, "pip_options": _TEXTS, "stage_packages": _TEXTS},
}


class VariantTable(TypedDict, total=False):
    """[environments.NAME.variants.cpu|gpu] as written, once VARIANT has checked it."""

    base: Required[str]
    packages: Required[list[str]]
    index_url: str
    pip_options: list[str]
    stage_packages: list[str]


class EnvironmentTable(TypedDict, total=False):
    """[environments.NAME] as written, once environment_schema() has checked it."""

    family: Required[list[str]]
    dockerfile: str
    image: str
    interpreter: str
    python: str
    python_version: str
    user: str
    default: bool
    variants: dict[str, VariantTable]


def environment_schema() -> dict[str, Any]:
    """One environment's shape; its families are those of the registered frameworks."""
    return {"type": "object", "additionalProperties": False, "required": ["family"], "properties": {
        "family": {"type": "array", "minItems": 1, "items": {"enum": frameworks.family_names()}},
        "dockerfile": _TEXT, "image": _TEXT, "interpreter": _TEXT, "python": _TEXT,
        "python_version": {"type": "string", "pattern": r"^[0-9]+\.[0-9]+$"},
        "user": _TEXT, "default": {"type": "boolean"},
        "variants": {"type": "object", "additionalProperties": False, "properties": {"cpu": VARIANT, "gpu": VARIANT}},
    }}


def schema() -> dict[str, Any]:
    return {"type": "object", "additionalProperties": False, "required": ["environments"],
            "properties": {"environments": {"type": "object", "additionalProperties": environment_schema()}}}


_HEADER = re.compile(r"^\s*\[\s*([^\]\[]+?)\s*\]")
_ASSIGN = re.compile(r"^\s*([A-Za-z0-9_\-.\"' ]+?)\s*=")


def _checked_marker(text: str) -> Path:
    """Where a file found valid against today's schema is remembered (its text and the schema's,
    hashed), so the next command does not import jsonschema to check it again (0.05-0.1 s of every
    start-up)."""
    digest = hashlib.sha256((json.dumps(schema(), sort_keys=True) + "\0" + text).encode()).hexdigest()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gpu-cleanup-matrix" / "valid-environments" / digest[:32]


def problems(data: dict[str, Any], text: str) -> list[str]:
    """Every way ``data`` (parsed from ``text``) breaks the schema: ``line N: where: what``; a text
    already found valid (``_checked_marker``) is not checked again."""
    marker = _checked_marker(text)
    if marker.is_file():
        return []
    from jsonschema import Draft202012Validator  # here, not at import: every command's start-up counts

    found = []
    for error in Draft202012Validator(schema()).iter_errors(data):
        path = [str(p) for p in error.absolute_path]
        key, what = _described(error)
        found.append((line_of(text, path + ([key] if key else [])), f"{'.'.join(path) or 'top level'}: {what}"))
    if not found:
        try:
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.touch()
        except OSError:
            pass  # a read-only home: checked every time, as before
    return [f"line {line}: {what}" for line, what in sorted(found)]


def _described(error: Any) -> tuple[str, str]:
    """(the key the problem is about, when it is a key; a sentence a user can act on)."""
    schema = error.schema if isinstance(error.schema, dict) else {}
    known = sorted(schema.get("properties", {}))
    if error.validator == "additionalProperties" and known:
        extra = sorted(set(error.instance) - set(known))[0]
        return extra, f"unknown key {extra!r}{suggest(extra, known)}"
    if error.validator == "required":
        missing = str(error.message).split("'")[1]
        return "", f"{missing!r} is missing (required)"
    if error.validator == "type" and error.validator_value == "array" and isinstance(error.instance, str):
        return "", f"must be a list, e.g. [{error.instance!r}], not the string {error.instance!r}"
    if error.validator == "enum":
        return "", f"{error.instance!r} is not one of {', '.join(map(str, error.validator_value))}"
    return "", error.message


def line_of(text: str, path: list[str]) -> int:
    """The line that defines ``path`` (the longest prefix of it that the text names), 1-based."""
    best, best_depth, table = 1, -1, []
    for number, line in enumerate(text.splitlines(), 1):
        header = _HEADER.match(line)
        keys = None
        if header:
            table = _keys(header.group(1))
            keys = table
        elif assign := _ASSIGN.match(line):
            keys = table + _keys(assign.group(1))
        if keys and keys == path[:len(keys)] and len(keys) > best_depth:
            best, best_depth = number, len(keys)
    return best


def _keys(dotted: str) -> list[str]:
    return [part.strip().strip("\"'") for part in dotted.split(".")]
