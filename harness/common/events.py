"""How library code reports progress without printing: a callback taking an event kind and its data.

The CLI renders the events (rich progress, summary lines); tests collect them. Each kind's data is
one of the types below (``cell-done`` and ``done``: the cell's record, ``checkpoint``: the checkpoint
as the record keeps it); a renderer reads the data of the kind it handles as that type.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from typing_extensions import TypedDict

Event = Callable[[str, Mapping[str, Any]], None]  # a Mapping: a cell's record (a TypedDict) is one


class Intent(TypedDict):
    """``intent``: what the run will do and on what, said before any environment is made."""

    variant: str
    reason: str
    envs: list[str]
    scenarios: int


class Plan(TypedDict):
    """``plan``: the run's cells, where they run and into which folder."""

    variant: str
    reason: str
    cells: int
    envs: list[str]
    gpu_mode: str
    gpu_note: str
    run_dir: str
    workers: list[str]  # a slot each: "cpu", "GPU 0"


class EnvReason(TypedDict):
    """``skipped`` and ``failed``: an environment that does not run, and why."""

    env: str
    reason: str


class Backend(TypedDict):
    backend: str
    reason: str


class Build(TypedDict):
    env: str
    tag: str  # the image being built (or pulled)


class Text(TypedDict):
    """``build-log``: what a build is doing; ``gpu-code`` (with ``env``): what its build can run on this GPU."""

    text: str


class Venv(TypedDict):
    env: str
    python: str
    reused: bool


class IPython(TypedDict, total=False):
    env: str
    python: str
    folder: str
    reused: bool


class Detected(TypedDict):
    env: str
    families: list[str]


class CellStart(TypedDict):
    env: str
    scenario: str
    slot: Any


class Releases(TypedDict):
    package: str
    versions: list[str]


class Version(TypedDict):
    version: str


class HistoryPart(TypedDict):
    package: str
    label: str
