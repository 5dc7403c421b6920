"""The run request: everything a run of cells was asked for, parsed once from the command line
(or read back from a run's manifest by --resume), handed to the one orchestration (matrix.run_matrix).

A field marked ``KEPT`` is written into the run's manifest as it is and read back by --resume
(resume.py) without a line of its own there; the environments and scripts asked for on the
command line are kept by resume.py's own reading (they are rebuilt, not copied).
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from harness.definitions import config
from harness.environments import images, tool_sites
from harness.measurement.scenario import Scenario

KEPT = {"kept": True}  # a request's plain value: into the manifest, and back on --resume


@dataclass(frozen=True, kw_only=True)
class MatrixOptions:
    envs: list[str] | None = field(default=None, metadata=KEPT)
    scenarios: list[str] | None = field(default=None, metadata=KEPT)
    variant: str | None = field(default=None, metadata=KEPT)
    results_root: Path = Path("results")
    timeout: float | None = field(default=None, metadata=KEPT)
    params: dict[str, Any] = field(default_factory=dict, metadata=KEPT)
    build: images.BuildOptions = field(default_factory=images.BuildOptions)
    jobs: int | None = None
    gpu_mode: str | None = field(default=None, metadata=KEPT)
    gpu_indices: list[int] | None = None
    extra_envs: list[config.EnvDef] = field(default_factory=list)
    backend: str = field(default="auto", metadata=KEPT)
    venv_root: Path = field(default_factory=tool_sites.venv_cache)
    items: list[Scenario] | None = None  # these instead of the catalogue (a repro script)
    setenv: dict[str, str] = field(default_factory=dict, metadata=KEPT)  # --setenv: for every cell
    with_pins: list[str] = field(default_factory=list, metadata=KEPT)  # --with PKG==VER: environments made on demand
    with_python: str = field(default="", metadata=KEPT)  # the Python --with environments prefer (a report's)
    pip: list[str] = field(default_factory=list, metadata=KEPT)  # --pip PKG[==VER]: into every environment made here
    index_url: str = field(default=config.DEFAULT_INDEX, metadata=KEPT)  # where --with pins are looked up
    run_id: str | None = None  # write into this run (bisect: one run folder for every version; --resume)
    resume: bool = False  # run only the planned cells of run_id that have no record yet
    cluster: str | None = field(default=None, metadata=KEPT)  # "ray" or "ray://host:port": every cell a Ray task


def kept_fields() -> list[str]:
    """The request's plain values a run's manifest keeps."""
    return [f.name for f in fields(MatrixOptions) if f.metadata.get("kept")]
