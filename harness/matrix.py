"""Running the matrix: pick the variant, build what is missing, run every applicable cell.

Cells run one at a time per GPU (a GPU's readings are clean only when it runs one cell); on the
``cpu`` variant several may run at once (``jobs``), each measured through its own processes.
Every finished cell is written at once, so an interrupted matrix keeps what it measured.
"""
from __future__ import annotations

import concurrent.futures
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import __version__, aggregate, catalogue, config, images, results
from .backends.docker import DockerBackend, remove_live_containers
from .docker_client import connect, gpu_support
from .nvml import Nvml
from .runner import CellOptions, run_cell
from .scenario import Scenario

Event = Callable[[str, dict[str, Any]], None]


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


@dataclass
class MatrixRun:
    run_id: str
    run_dir: Path
    variant: str
    variant_reason: str
    gpu_request: bool
    gpu_note: str
    records: list[dict[str, Any]] = field(default_factory=list)
    matrix: dict[str, Any] = field(default_factory=dict)


def choose_variant(requested: str | None, nvml: Nvml) -> tuple[str, str]:
    if requested:
        return requested, "asked for"
    if nvml.available:
        return "gpu", f"NVIDIA GPU found ({nvml.gpus[0].name}, driver {nvml.driver})"
    return "cpu", f"no NVIDIA GPU: {nvml.reason}; the GPU columns are unavailable, RSS only"


def run_matrix(options: MatrixOptions, nvml: Nvml, emit: Event) -> MatrixRun:
    envs = config.select(config.load_environments(), options.envs)
    chosen = catalogue.select(catalogue.discover(), options.scenarios)
    variant, why = choose_variant(options.variant, nvml)
    for env in envs:
        env.variant(variant)  # UsageError now, not after the builds
    cells = catalogue.plan(envs, chosen)
    client = connect()
    support = gpu_support(client)
    gpus = variant == "gpu" and nvml.available and support.any
    gpu_note = "" if gpus else ("cpu variant" if variant == "cpu" else f"no container GPU support ({support.detail})")
    run_id = results.new_run_id()
    run = MatrixRun(run_id, options.results_root / run_id, variant, why, gpus, gpu_note)
    emit("plan", {"variant": variant, "reason": why, "cells": len(cells), "envs": [e.name for e in envs],
                  "gpu_request": gpus, "gpu_note": gpu_note, "run_dir": str(run.run_dir)})
    planned = [(env.name, item.name) for env, item in cells]
    manifest = {"run_id": run_id, "tool_version": __version__, "variant": variant, "variant_reason": why,
                "backend": "docker", "planned": planned, "host": {"driver": nvml.driver,
                "gpus": [g.name for g in nvml.gpus], "nvml": nvml.available, "nvml_reason": nvml.reason or None}}
    results.write_manifest(run.run_dir, manifest)
    for env in {env.name: env for env, _ in cells}.values():
        if not images.image_current(client, env, variant):
            emit("build", {"env": env.name, "tag": env.image_tag(variant)})
            images.build(client, env, variant, options.build, lambda text: emit("build-log", {"text": text}))
    jobs = options.jobs or (1 if gpus else max(1, min(2, os.cpu_count() or 1)))

    def one(env: config.EnvDef, item: Scenario) -> dict[str, Any]:
        backend = DockerBackend(client=client, image=env.image_tag(variant), python=env.python, user=env.user,
                                gpus=gpus, gpu_note=gpu_note)
        cell_options = CellOptions(run_id=run_id, run_dir=run.run_dir, env_name=env.name,
                                   env_facts={"variant": variant, "family": list(env.family)},
                                   params=options.params, timeout=options.timeout, cpu_only=not gpus)
        emit("cell-start", {"env": env.name, "scenario": item.name})
        record = run_cell(backend, item, cell_options, nvml)
        results.write_record(run.run_dir, record)
        emit("cell-done", record)
        return record

    pool = concurrent.futures.ThreadPoolExecutor(max_workers=jobs)
    try:
        futures = [pool.submit(one, env, item) for env, item in cells]
        for future in concurrent.futures.as_completed(futures):
            run.records.append(future.result())
    except BaseException:
        # Ctrl-C: no new cell starts, running containers go now (their cells end as crashed).
        pool.shutdown(wait=False, cancel_futures=True)
        remove_live_containers()
        raise
    finally:
        pool.shutdown(wait=True)
        note = f"Variant `{variant}` ({why})."
        run.matrix = aggregate.write_matrix(run.run_dir, planned, note=note)
    return run
