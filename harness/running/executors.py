"""Where a run's cells run: this host's GPU slots, or Ray tasks across a cluster.

run_matrix plans the cells once (environments, the catalogue, --resume, the manifest, the records
of cells that cannot run, the reports) and hands them to one executor behind one interface: each
makes its environments ready its own way (here, before any cell; on a cluster, on each node) and
runs the cells, handing every record to ``keep`` as it ends (written at once, so an interrupted
run keeps what it measured).
"""
from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from harness.common.errors import HarnessError, UsageError
from harness.common.events import Event
from harness.definitions import config
from harness.environments import prepare
from harness.measurement import gpu_access
from harness.measurement.nvml import Nvml
from harness.measurement.runner import CellOptions, run_cell
from harness.measurement.scenario import Scenario
from harness.measurement.unrun import ENGINE_LOST, engine_down_record
from harness.model.record import CellRecord, Status
from harness.running import interruption
from harness.running.request import MatrixOptions
from harness.running.slots import run_on_slots, script_gpus, script_slots, slots_for

Cells = list[tuple[config.EnvDef, Scenario]]
Keep = Callable[[CellRecord, str], CellRecord]  # (record, its log when it came from elsewhere) -> the record


@dataclass
class Ready:
    """The environments as an executor found or made them, before any cell runs."""

    kind: str  # docker, venv, process, ray
    reason: str
    envs: list[config.EnvDef]
    access: gpu_access.GpuAccess
    runnable: set[str] = field(default_factory=set)  # environments a cell can start in now
    skipped: dict[str, str] = field(default_factory=dict)  # cannot run here: why
    failed: dict[str, str] = field(default_factory=dict)  # could not be built or started: its cells' result
    errors: dict[str, HarnessError] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    manifest: dict[str, Any] = field(default_factory=dict)  # what else the run's manifest says of them
    note: str = ""  # how the cells were run, for the reports (after the variant)
    gpu_mode: str = ""  # as the plan and the manifest say it: the access's mode unless the executor says better
    gpu_note: str = ""

    def __post_init__(self) -> None:
        self.gpu_mode = self.gpu_mode or self.access.mode
        self.gpu_note = self.gpu_note or self.access.reason


@dataclass(frozen=True, kw_only=True)
class Batch:
    """The cells to run now, and what each cell needs from the run."""

    cells: Cells
    run_id: str
    run_dir: Path
    variant: str


class Executor(Protocol):
    def prepare(self, envs: list[config.EnvDef], variant: str, only: set[str] | None) -> Ready:
        """Each environment found or made ready (``only``: those with cells still to run)."""

    def workers(self, cells: Cells) -> list[str]:
        """Who runs the cells, for the plan: "GPU 0", "cpu", a cluster's nodes."""

    def run(self, batch: Batch, keep: Keep) -> list[CellRecord]:
        """Every cell of the batch run, each record handed to ``keep``; the records kept."""


def cell_facts(env: config.EnvDef, variant: str) -> dict[str, Any]:
    """What a record says of its environment: its kind, families, variant and the pins it was made from."""
    built = {"base": env.variant(variant).base, "packages": list(env.variant(variant).packages)} \
        if env.kind == "build" and not env.unavailable and variant in env.variants else {}
    return {"kind": env.kind, "family": list(env.family), "variant": variant if env.kind == "build" else None,
            **built, **pin_facts(env, variant)}


def pin_facts(env: config.EnvDef, variant: str) -> dict[str, Any]:
    """What a --with environment was made from: the pins asked for and everything chosen for them."""
    if not env.pin or env.unavailable:
        return {"pin": env.pin} if env.pin else {}  # a pin that cannot be made here is still named by it
    pins = env.variant(variant)
    return {"pin": env.pin, "python_version": env.python_version, "base": pins.base, "packages": list(pins.packages),
            "index_url": pins.index_url or None}


@dataclass
class LocalExecutor:
    """Cells on this host: a worker per GPU pulling from one queue (a GPU's readings are clean only
    when it runs one cell); without GPUs, ``jobs`` cells at once, each measured through its own processes."""

    options: MatrixOptions
    nvml: Nvml
    emit: Event
    prepared: prepare.Prepared | None = None

    def prepare(self, envs: list[config.EnvDef], variant: str, only: set[str] | None) -> Ready:
        o = self.options
        ready = self.prepared = prepare.prepare(envs, variant, o.backend, o.gpu_mode, o.build, o.venv_root, self.nvml,
                                                self.emit, workers=o.jobs or max(1, min(4, os.cpu_count() or 1)), only=only,
                                                notebook=any(item.notebook for item in o.items or []))
        note = f"backend {ready.kind} ({ready.reason}); GPU access: {ready.access.mode} ({ready.access.reason})."
        if ready.fallback:  # its image could not be built here: the same pins in a virtualenv
            note += f" In virtualenvs instead of their images: {', '.join(sorted(ready.fallback))} (no base image here)."
        return Ready(ready.kind, ready.reason, ready.envs, ready.access, set(ready.backends), ready.skipped, ready.failed,
                     ready.errors, ready.seconds, note=note, manifest={"fallback": ready.fallback} if ready.fallback else {})

    def _slots(self, cells: Cells) -> tuple[list[int | None], tuple[int, ...]]:
        cpu_workers = self.options.jobs or max(1, min(2, os.cpu_count() or 1))
        slots = slots_for(self.options.gpu_indices, self.nvml) or [None] * cpu_workers
        return script_slots(slots, [item for _, item in cells])

    def workers(self, cells: Cells) -> list[str]:
        return [f"GPU {s}" if s is not None else "cpu" for s in self._slots(cells)[0]]

    def run(self, batch: Batch, keep: Keep) -> list[CellRecord]:
        assert self.prepared is not None, "prepare first"
        ready, options, nvml = self.prepared, self.options, self.nvml
        slots, gpus = self._slots(batch.cells)
        interrupted = threading.Event()
        engine_down: list[str] = []  # why the engine stopped answering, once a cell saw it

        def one(env: config.EnvDef, item: Scenario, slot: int | None) -> CellRecord:
            backend = ready.backends[env.name]
            gpu = nvml.available and (backend.name != "docker" or ready.access.mode != "none")
            cell_options = CellOptions(run_id=batch.run_id, run_dir=batch.run_dir, env_name=env.name,
                                       env_facts=cell_facts(env, batch.variant), params=options.params,
                                       timeout=options.timeout, cpu_only=not gpu, gpu_index=slot or 0,
                                       setenv=options.setenv, **(script_gpus(gpus, nvml) if item.mode == "repro" else {}))
            if engine_down:  # no cell starts on an engine that stopped answering; --resume runs it
                record = engine_down_record(batch.run_id, env.name, backend.name, item, engine_down[0], batch.run_dir)
            else:
                self.emit("cell-start", {"env": env.name, "scenario": item.name, "slot": slot})
                record = run_cell(backend, item, cell_options, nvml, self.emit)
                error = record.get("error")
                if error and error.get("type") == ENGINE_LOST:
                    engine_down.append(error.get("why") or "")
            if interrupted.is_set() and record["status"] in (Status.CRASHED, Status.HARNESS_ERROR, Status.TIMEOUT):
                interruption.mark(record, batch.run_dir)  # cut by the user's Ctrl-C, not its own result
            return keep(record, "")

        try:
            return run_on_slots(batch.cells, slots, one, interrupted)
        except KeyboardInterrupt:
            interruption.sweep_containers(ready.backends.values(), batch.run_id)
            raise


@dataclass
class RayExecutor:
    """Every cell a Ray task on the node Ray picks, its environment made ready there (cluster.py)."""

    options: MatrixOptions
    nvml: Nvml
    emit: Event
    offered: dict[str, Any] = field(default_factory=dict)

    def prepare(self, envs: list[config.EnvDef], variant: str, only: set[str] | None) -> Ready:
        from harness.running import cluster

        for env in envs:
            if env.kind == "image" and not env.family:
                raise UsageError(f"--cluster: give --family for --image {env.image} (it is probed on the nodes, not here)")
        self.offered = cluster.connect(self.options.cluster or "ray")
        reason = f"--cluster {self.options.cluster}"
        self.emit("backend", {"backend": f"ray, {self.offered['nodes']} node(s)", "reason": reason})
        skipped = {env.name: env.unavailable for env in envs if env.unavailable}
        return Ready("ray", reason, list(envs), gpu_access.GpuAccess("none", "per node: each node's engine decides"),
                     {env.name for env in envs if not env.unavailable}, skipped, manifest={"cluster": self.offered},
                     note=f"cells on a Ray cluster ({self.offered['nodes']} node(s) at the start).",
                     gpu_mode="per node", gpu_note="each node's engine decides")

    def workers(self, cells: Cells) -> list[str]:
        from harness.running import cluster

        return [f"ray: {self.offered['nodes']} node(s), {cluster.task_resources(self.offered['resources'])}"]

    def run(self, batch: Batch, keep: Keep) -> list[CellRecord]:
        from harness.running import cluster

        o = self.options
        jobs = [cluster.NodeJob(env=env, item=item, variant=batch.variant, backend=o.backend, gpu_mode=o.gpu_mode,
                                build=o.build,
                                cell=CellOptions(run_id=batch.run_id, run_dir=batch.run_dir, env_name=env.name,
                                                 params=o.params, env_facts=cell_facts(env, batch.variant),
                                                 timeout=o.timeout, cpu_only=not self.nvml.available, setenv=o.setenv))
                for env, item in batch.cells]
        return list(cluster.run_cells(jobs, keep, batch.run_id))


def executor_for(options: MatrixOptions, nvml: Nvml, emit: Event) -> Executor:
    return RayExecutor(options, nvml, emit) if options.cluster else LocalExecutor(options, nvml, emit)
