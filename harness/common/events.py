"""How library code reports progress without printing: a callback taking an event kind and its data.

The CLI renders the events (rich progress, summary lines); tests collect them. Kinds in use:
plan, backend, build, build-log, skipped, venv, ipython, detected, cell-start, cell-done, checkpoint,
releases, version.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

Event = Callable[[str, Mapping[str, Any]], None]  # a Mapping: a cell's record (a TypedDict) is one
