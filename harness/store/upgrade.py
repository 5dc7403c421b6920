"""Old records, read as today's: an explicit, versioned upgrade applied in memory as the store
reads a record, never written back (a committed reference stays byte-for-byte as it was).

Each step takes a record of version N to N + 1; a record newer than this tool knows is refused in
one line (its fields may mean what this tool cannot tell).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from harness.model.record import SCHEMA_VERSION


class TooNew(ValueError):
    """A record written by a newer tool than this one."""


def _from_unversioned(raw: dict[str, Any]) -> dict[str, Any]:
    """Version 0: records from before ``schema_version`` was written; their fields are version 1's."""
    return {**raw, "schema_version": 1}


STEPS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {0: _from_unversioned}


def upgraded(raw: dict[str, Any]) -> dict[str, Any]:
    """``raw`` brought to SCHEMA_VERSION (a new dict where anything changed; ``raw`` is left as it is)."""
    version = raw.get("schema_version", 0)
    if not isinstance(version, int):
        raise ValueError(f"schema_version {version!r} is not a number")
    if version > SCHEMA_VERSION:
        raise TooNew(f"record schema {version} is newer than this tool reads ({SCHEMA_VERSION}): "
                     "upgrade gpu-cleanup-matrix to read it")
    while version < SCHEMA_VERSION:
        raw = STEPS[version](raw)
        version = raw["schema_version"]
    return raw
