"""The run request: everything a run of cells was asked for, parsed once from the command line
(or read back from a run's manifest by --resume), handed to the one orchestration (matrix.run_matrix)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.environments import config, images, pkgindex
from harness.measurement.scenario import Scenario


@dataclass(frozen=True, kw_only=True)
class MatrixOptions:
    envs: list[str] | None = None
    scenarios: list[str] | None = None
    variant: str | None = None
    results_root: Path = Path("results")
    timeout: float | None = None
    params: dict[str, Any] = field(default_factory=dict)
    build: images.BuildOptions = field(default_factory=images.BuildOptions)
    jobs: int | None = None
    gpu_mode: str | None = None
    gpu_indices: list[int] | None = None
    extra_envs: list[config.EnvDef] = field(default_factory=list)
    backend: str = "auto"
    venv_root: Path = Path(".matrix-venvs")
    items: list[Scenario] | None = None  # these instead of the catalogue (a repro script)
    setenv: dict[str, str] = field(default_factory=dict)  # --setenv: for every cell
    with_pins: list[str] = field(default_factory=list)  # --with PKG==VER: environments made on demand
    index_url: str = pkgindex.DEFAULT_INDEX  # where --with pins are looked up
    run_id: str | None = None  # write into this run (bisect: one run folder for every version; --resume)
    resume: bool = False  # run only the planned cells of run_id that have no record yet
    cluster: str | None = None  # "ray" or "ray://host:port": every cell a Ray task (cluster.py)
