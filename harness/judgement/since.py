"""A technique the release does not have: a cell of a release older than the one its scenario names (META
``since``) measured the framework without it, so its answer is no answer of the release's cleanup.

``PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True`` came with torch 2.1: torch 1.4.0 never reads the
variable's option and its cell "released" only what ``empty_cache()`` always did. An API the release
lacks (``set_per_process_memory_fraction`` before 1.8) stops the cell instead (or an earlier failure did):
the why names what the release lacks, not the AttributeError.
Scenarios are read as they are today, so a record written before the key existed is judged by it too.
"""
from __future__ import annotations

from packaging.version import InvalidVersion, Version

from harness.common.meta import scenario_meta
from harness.common.pinned import exact
from harness.model.record import CellRecord, Status


def _release(record: CellRecord, framework: str) -> str | None:
    """The framework's version the cell ran: as it imported it, else as its environment pinned it."""
    seen = ((record.get("facts") or {}).get("frameworks") or {}).get(framework)
    if seen:
        return str(seen)
    return next((release for req, release in exact(str((record.get("env") or {}).get("name") or ""))
                 if req.name == framework), None)


def predates(record: CellRecord) -> str | None:
    """Why the cell's release cannot answer its scenario (it predates what the scenario uses), or None."""
    scenario = record.get("scenario") or {}
    if scenario.get("mode") == "repro":
        return None
    for framework, (first, what) in (scenario_meta(str(scenario.get("name") or "")).get("since") or {}).items():
        release = _release(record, framework)
        try:
            older = release is not None and Version(release).release < Version(first).release
        except InvalidVersion:
            continue
        if older:
            cell = ("so the cell measured the framework without it, not" if record.get("status") == Status.OK
                    else "so the cell is not")
            lacks = f"{what} came with {framework} {first}: {framework} {release} does not have it"
            return f"{lacks}, {cell} an answer of the release"
    return None
