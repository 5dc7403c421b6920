"""The one orchestration: every command that runs cells (run, matrix, repro, sweep, bisect, a
cluster) plans them here once and hands them to an executor (executors.py).

Environments come in three kinds (config.EnvDef): images this tool builds, existing images
(bring your own), and local interpreters; the executor makes each ready (prepare.py: Docker, a
virtualenv or the interpreter as found) or says why it cannot run. Planning, the manifest, the
records of cells that cannot run and the reports are the same whoever runs the cells; every
finished cell is written at once, so an interrupted matrix keeps what it measured.
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from harness import __version__, frameworks
from harness.common.errors import UsageError
from harness.common.events import Event
from harness.definitions import config
from harness.measurement import gpu_access
from harness.measurement.nvml import Nvml
from harness.measurement.scenario import Scenario
from harness.measurement.unrun import skipped_record
from harness.model.judged import MatrixDoc
from harness.model.manifest import Manifest
from harness.model.record import CellRecord, Status
from harness.running import catalogue, interruption
from harness.running.executors import Batch, executor_for, pin_facts
from harness.running.request import MatrixOptions
from harness.running.resume import request_of
from harness.store import results

if TYPE_CHECKING:
    from harness.reporting.aggregate import ReadRun


@dataclass
class MatrixRun:
    run_id: str
    run_dir: Path
    variant: str
    variant_reason: str
    access: gpu_access.GpuAccess
    backend: str = "docker"
    records: list[CellRecord] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)  # environment -> why it could not run here
    no_gpu: set[str] = field(default_factory=set)  # of those, the ones whose framework needs a GPU (unsupported here)
    failed: dict[str, str] = field(default_factory=dict)  # environment -> why its build or start failed
    planned: list[tuple[str, str]] = field(default_factory=list)
    matrix: MatrixDoc = field(default_factory=lambda: MatrixDoc(schema_version=0, environments=[], cells={}))
    wall_s: float = 0.0
    prepare_s: dict[str, float] = field(default_factory=dict)  # environment -> seconds to make or find it ready


def choose_variant(requested: str | None, nvml: Nvml) -> tuple[str, str]:
    if requested:
        return requested, "asked for"
    if nvml.available:
        return "gpu", f"NVIDIA GPU found ({nvml.gpus[0].name}, driver {nvml.driver}): GPU memory read through NVML"
    return "cpu", (f"no NVIDIA GPU: {nvml.reason}; this run measures host memory (RSS) only, so the claims about GPU "
                   "memory the scenarios test cannot be decided here")


def _environments(options: MatrixOptions, variant: str, items: list[Scenario]) -> list[config.EnvDef]:
    """The named environments, the --image/--interpreter ones, and one per --with pin."""
    fallback = tuple(dict.fromkeys(f for item in items for f in item.families))
    pinned = []
    if options.with_pins:
        from harness.environments import adhoc  # here: packaging (~70 ms) only where --with pins are made

        pinned = [adhoc.environment(text, variant, fallback, options.index_url, options.with_python)
                  for text in options.with_pins]
    extra = list(options.extra_envs) + pinned
    named = options.envs or []
    envs = extra if extra and not named else config.select(config.load_environments(), named or None) + extra
    return [config.with_packages(env, options.pip) for env in envs] if options.pip else envs


def run_matrix(options: MatrixOptions, nvml: Nvml, emit: Event) -> MatrixRun:
    started = time.monotonic()
    results.check_writable(options.results_root)
    chosen = options.items if options.items is not None else catalogue.select(catalogue.discover(), options.scenarios)
    variant, why = choose_variant(options.variant, nvml)
    envs = _environments(options, variant, chosen)
    known = all(env.family for env in envs)  # an --image without --family says its frameworks only once probed
    if options.items is None and not options.resume and envs and chosen and known and not catalogue.plan(envs, chosen):
        raise UsageError(catalogue.no_overlap(envs, chosen))  # before any image is built: nothing would run
    unfit = catalogue.unfit(envs, chosen) if options.items is not None else {}
    for name, reason in unfit.items():  # an environment asked for that cannot run the script: said, never dropped
        emit("skipped", {"env": name, "reason": reason})
    if unfit and len(unfit) == len(envs):
        raise UsageError(f"no environment asked for can run {chosen[0].path.name}: " + "; ".join(unfit.values()))
    envs = [env for env in envs if env.name not in unfit]
    for env in (e for e in envs if e.kind == "build" and not e.unavailable):
        env.variant(variant)  # UsageError now, not after the builds
    no_gpu = {} if nvml.available else {e.name: f"{needs}, and this host has none: not made here (its cells run on a GPU "
                                        "host)" for e in envs if (needs := frameworks.gpu_needed(e.family))}
    emit("intent", {"variant": variant, "reason": why, "envs": [env.name for env in envs], "scenarios": len(chosen)})
    for name, reason in no_gpu.items():  # known before anything is fetched: its cells are unsupported, with why
        emit("skipped", {"env": name, "reason": reason})
    needing, envs = [e for e in envs if e.name in no_gpu], [e for e in envs if e.name not in no_gpu]
    executor = executor_for(options, nvml, emit)
    ready = executor.prepare(envs, variant, _still_to_run(envs, chosen, options))
    cells = catalogue.plan(ready.envs, chosen) + catalogue.plan(needing, chosen)
    run_id = options.run_id or results.new_run_id()
    run = MatrixRun(run_id, options.results_root / run_id, variant, why, ready.access, ready.kind)
    todo = _todo(cells, run.run_dir, options)
    left = {env.name for env, _ in todo}  # resumed: an environment whose cells all finished earlier is done
    errors = {name: error for name, error in ready.errors.items() if name in left}
    if errors and not ready.runnable & left:  # nothing can run: the failure itself is the answer, in one line
        raise next(iter(errors.values()))
    for name, error in errors.items():
        emit("failed", {"env": name, "reason": error.message})
    planned = [(env.name, item.name) for env, item in cells]
    failed = {name: why for name, why in ready.failed.items() if name in left}
    run.skipped, run.failed, run.planned, run.prepare_s = {**unfit, **no_gpu, **ready.skipped}, failed, planned, ready.seconds
    run.no_gpu = set(no_gpu)
    runnable = [(env, item) for env, item in todo if env.name not in run.skipped and env.name not in ready.failed]
    emit("plan", {"variant": variant, "reason": why, "cells": len(runnable), "envs": [e.name for e in ready.envs + needing],
                  "gpu_mode": ready.gpu_mode, "gpu_note": ready.gpu_note, "run_dir": str(run.run_dir),
                  "workers": executor.workers(runnable)})
    results.write_manifest(run.run_dir, cast(Manifest, {  # the executor's own keys spread in
        "run_id": run_id, "tool_version": __version__, "variant": variant, "variant_reason": why,
        "backend": ready.kind, "backend_reason": ready.reason, "skipped": run.skipped,
        "gpu_mode": ready.gpu_mode, "gpu_mode_reason": ready.gpu_note, "planned": planned,
        "environments": {env.name: _env_manifest(env, variant) for env in ready.envs},
        "host": _host(nvml), **ready.manifest, "request": request_of(options),
    }))
    not_run = _write_skipped(run, todo)

    def keep(record: CellRecord, log: str) -> CellRecord:
        try:
            results.write_record(run.run_dir, record)
            if log:  # a cell run elsewhere (a cluster's node) sends its log back
                path = results.log_path(run.run_dir, record["env"]["name"], record["scenario"]["name"])
                path.parent.mkdir(parents=True, exist_ok=True)
                results.write_text(path, log)
        except OSError as exc:  # the disk filled or went read-only mid-run: stop, saying where and why
            raise results.unwritable(run.run_dir, exc) from exc
        emit("cell-done", record)
        return record

    try:
        batch = Batch(cells=runnable, run_id=run_id, run_dir=run.run_dir, variant=variant)
        run.records = _whole_run(run.run_dir, not_run + executor.run(batch, keep), options.resume)
    except KeyboardInterrupt as exc:
        raise interruption.RunInterrupted(run.run_dir) from exc
    finally:
        note = f"Variant `{variant}` ({why}); {ready.note}"
        from harness.reporting import aggregate  # here: what only the end needs, imported while the cells run (cli/warm)

        try:
            run.matrix = aggregate.write_reports(run.run_dir, planned, note=note, judged=_in_memory(run, options))
        except OSError as exc:
            if sys.exc_info()[1] is None:  # else the error already on its way says it
                raise results.unwritable(run.run_dir, exc) from exc
        run.wall_s = round(time.monotonic() - started, 2)
    return run


def _in_memory(run: MatrixRun, options: MatrixOptions) -> ReadRun | None:
    """This run's records as written, in the order reading them back gives (judged when they ended, by
    today's rules): its reports need no second read. A resumed run's earlier parts are read instead,
    and so is a run cut before its records came back."""
    if options.resume or not run.records:
        return None
    def where(record: CellRecord) -> str:  # a fresh run's records are plain .json: no file to look for
        return str(results.cell_path(run.run_dir, record["env"]["name"], record["scenario"]["name"]))
    return sorted(run.records, key=where), []


def _host(nvml: Nvml) -> dict[str, Any]:
    return {"driver": nvml.driver, "gpus": [g.name for g in nvml.gpus], "nvml": nvml.available,
            "nvml_reason": nvml.reason or None}


ENVIRONMENT_FAILED = "EnvironmentFailed"


def _write_skipped(run: MatrixRun, todo: list[tuple[config.EnvDef, Scenario]]) -> list[CellRecord]:
    """A record for each planned cell whose environment cannot run here (skipped) or could not be
    built or started (harness-error), with the reason; the records written."""
    written = []
    for env, item in todo:
        if env.name in run.no_gpu:  # the framework's own limit here, an answer: unsupported, with why
            record = skipped_record(run.run_id, env.name, run.backend, item, run.skipped[env.name], Status.UNSUPPORTED)
        elif env.name in run.skipped:
            record = skipped_record(run.run_id, env.name, run.backend, item, run.skipped[env.name])
        elif env.name in run.failed:  # its build or start failed: that is this environment's result
            record = skipped_record(run.run_id, env.name, run.backend, item, run.failed[env.name], status=Status.HARNESS_ERROR)
            record["error"] = {"type": ENVIRONMENT_FAILED, "message": run.failed[env.name]}
        else:
            continue
        if env.pin:  # a --with release that could not be made is still named by its pins (a report's answer)
            record["env"]["pin"] = env.pin
        results.write_record(run.run_dir, record)
        written.append(record)
    return written


def _todo(cells: list[tuple[config.EnvDef, Scenario]], run_dir: Path,
          options: MatrixOptions) -> list[tuple[config.EnvDef, Scenario]]:
    """The cells to run: all, or with --resume those without a record in the run folder yet."""
    if not options.resume:
        return cells
    return [(env, item) for env, item in cells if not interruption.finished(results.cell_path(run_dir, env.name, item.name))]


def _still_to_run(envs: list[config.EnvDef], chosen: list[Scenario], options: MatrixOptions) -> set[str] | None:
    """Resumed: the environments with cells left (and images whose families a probe must tell); those
    whose cells all finished are not built again (a machine that resumes may lack their wheels)."""
    if not options.resume or not options.run_id:
        return None
    todo = _todo(catalogue.plan(envs, chosen), options.results_root / options.run_id, options)
    return {env.name for env, _ in todo} | {env.name for env in envs if env.kind == "image" and not env.family}


def _whole_run(run_dir: Path, records: list[CellRecord], resumed: bool) -> list[CellRecord]:
    """The records a run stands on: those of this part, or, resumed, of every part of it (a run whose
    last cells finished earlier is not a run where nothing ran)."""
    return results.read_records(run_dir)[0] if resumed else records


def _env_manifest(env: config.EnvDef, variant: str) -> dict[str, Any]:
    return {"kind": env.kind, "family": list(env.family), **pin_facts(env, variant),
            **({"unavailable": env.unavailable} if env.unavailable else {})}
