"""Fan-out over a Ray cluster: every cell a Ray task, run on the node Ray picks, measured there.

A task asks for one GPU (``num_gpus=1``), so a node runs one cell per GPU at a time, as the local
matrix does; on a cluster without GPUs it asks for one unit of the custom resource
``harness_cell`` when the nodes declare it (``ray start --resources '{"harness_cell": 2}'``:
cells per node), else for one CPU. On its node the task makes the environment ready (the image
built, or pulled from a registry, once per node under a file lock; or a virtualenv), runs the
same runner with that node's Docker engine and NVML, and returns the record and its log; the
driver writes each record as it arrives. A task lost with its node runs again elsewhere (Ray's
retries); a small actor counts the attempts, so the record says it was retried. Interrupting
the driver tells the cells not yet started to start nothing, and a last task on every live node
removes whatever container of this run is left there, which ends the running cells.

Ray is an optional extra (``pip install 'gpu-cleanup-matrix[ray]'``); every node needs this
package, Ray, and Docker or the environments' Pythons, plus an NVIDIA driver for GPU cells.
"""
from __future__ import annotations

import fcntl
import re
import socket
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from harness.common.errors import EnvironmentNotFound, UsageError
from harness.definitions.config import EnvDef
from harness.environments import images, prepare, venvs
from harness.measurement.nvml import Nvml
from harness.measurement.runner import CellOptions, run_cell
from harness.measurement.scenario import Scenario
from harness.measurement.unrun import skipped_record
from harness.model.record import CellRecord, Status

RESOURCE = "harness_cell"
MAX_RETRIES = 3  # a task whose node dies runs again on another node, this many times at most
LOCK_DIR = Path(tempfile.gettempdir()) / "gpu-cleanup-matrix-locks"
NODE_VENVS = Path.home() / ".cache" / "gpu-cleanup-matrix" / "venvs"


@dataclass(frozen=True, kw_only=True)
class NodeJob:
    """One cell, with everything its node needs to make the environment and run it."""

    env: EnvDef
    item: Scenario
    variant: str
    backend: str  # auto, docker, venv, process: decided on the node, by what the node has
    gpu_mode: str | None
    build: images.BuildOptions
    cell: CellOptions  # run_dir is the driver's: the node writes into a folder of its own

    @property
    def key(self) -> str:
        return f"{self.env.name}/{self.item.name}"


def _ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise UsageError("--cluster ray needs Ray: pip install 'gpu-cleanup-matrix[ray]'") from exc
    return ray


def connect(address: str) -> dict[str, Any]:
    """Join the cluster (``ray``: RAY_ADDRESS as Ray reads it, else a local instance; or a
    ``ray://host:port`` address); returns what it offers."""
    ray = _ray()
    if not ray.is_initialized():
        try:
            ray.init(address=None if address == "ray" else address, logging_level="WARNING", log_to_driver=False)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise EnvironmentNotFound(f"no Ray cluster answers at {address} ({str(exc).splitlines()[0][:160]}): "
                                      "start one (`ray start --head`), or run without --cluster") from exc
    nodes = [n for n in ray.nodes() if n.get("Alive")]
    return {"nodes": len(nodes), "resources": dict(ray.cluster_resources())}


def task_resources(resources: dict[str, float]) -> dict[str, Any]:
    """What one cell asks of its node: a GPU, else a cell slot, else a CPU."""
    if resources.get("GPU", 0) >= 1:
        return {"num_gpus": 1, "num_cpus": 0}
    if resources.get(RESOURCE, 0) >= 1:
        return {"num_cpus": 0, "resources": {RESOURCE: 1}}
    return {"num_cpus": 1}


def node_facts() -> dict[str, Any]:
    ray = _ray()
    context = ray.get_runtime_context()
    return {"hostname": socket.gethostname(), "node_id": context.get_node_id(),
            "ip": ray.util.get_node_ip_address()}


def _lock_path(name: str) -> Path:
    LOCK_DIR.mkdir(parents=True, exist_ok=True)
    return LOCK_DIR / (re.sub(r"[^A-Za-z0-9._-]+", "-", name) + ".lock")


def node_backend(job: NodeJob, nvml: Nvml) -> Any:
    """The backend for ``job`` on this node. Concurrent cells of one environment on a node wait
    for one another here, so an image (or a virtualenv) is made once per node."""
    from harness.measurement import gpu_access

    kind, _, client = prepare.choose_backend(job.backend, [job.env])
    access = gpu_access.GpuAccess("none", "no container on this node")
    if client is not None:
        access = gpu_access.for_run(client.info(), job.variant, nvml.available, job.gpu_mode)
    with open(_lock_path(f"{job.env.name}-{job.variant}"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if client is not None and job.env.kind == "image":
            prepare.ready_image(client, job.env, job.variant, job.build, lambda kind, data: None)
        return prepare.backend_for(job.env, kind, job.variant, client, access, job.build, NODE_VENVS,
                                   lambda kind, data: None)


def run_on_node(job: NodeJob, attempts: Any) -> tuple[CellRecord, str]:
    """The body of a cell's Ray task: (its record, its full log)."""
    ray = _ray()
    attempt = int(ray.get(attempts.start.remote(job.key)))
    if attempt == 0:  # the driver is stopping (Ctrl-C): start nothing
        return skipped_record(job.cell.run_id, job.env.name, job.backend, job.item, "the run was interrupted",
                              status=Status.INTERRUPTED), ""
    ids = ray.get_gpu_ids()
    nvml = Nvml.open()
    try:
        gpu_index = int(ids[0]) if ids else 0
        with tempfile.TemporaryDirectory(prefix="harness-node-") as tmp:
            cell = replace(job.cell, run_dir=Path(tmp), gpu_index=gpu_index,
                           cpu_only=job.cell.cpu_only or not nvml.available)
            try:
                backend = node_backend(job, nvml)
            except (venvs.EnvSkipped, EnvironmentNotFound, UsageError) as exc:
                record = skipped_record(cell.run_id, job.env.name, job.backend, job.item, getattr(exc, "message", str(exc)))
                log = ""
            else:
                record = run_cell(backend, job.item, cell, nvml)
                logs = list(Path(tmp).glob("logs/*/*.log"))
                log = logs[0].read_text(encoding="utf-8", errors="replace") if logs else ""
    finally:
        nvml.close()
    record["node"] = node_facts()
    record["attempt"] = attempt
    record["retried"] = attempt > 1
    return record, log


def remove_run_containers(run_id: str) -> int:
    """On this node: remove every container labelled with ``run_id``."""
    from harness.environments.docker_client import connect as docker_connect
    from harness.measurement.backends.owned_containers import LABEL_RUN, remove_container

    try:
        client = docker_connect(timeout=30)
    except EnvironmentNotFound:
        return 0
    containers = client.containers.list(all=True, filters={"label": f"{LABEL_RUN}={run_id}"})
    for container in containers:
        remove_container(container)
    return len(containers)


Done = Callable[[CellRecord, str], object]  # told each record (and its log) as it arrives; its answer unused


def run_cells(jobs: list[NodeJob], done: Done, run_id: str) -> list[CellRecord]:
    """Run every job as a Ray task; ``done(record, log)`` as each arrives; all records, in order."""
    ray = _ray()
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    @ray.remote(num_cpus=0)
    class Attempts:
        def __init__(self) -> None:
            self.seen: dict[str, int] = {}
            self.stopping = False

        def start(self, key: str) -> int:
            """This cell's attempt number, or 0 once the run is stopping."""
            if self.stopping:
                return 0
            self.seen[key] = self.seen.get(key, 0) + 1
            return self.seen[key]

        def stop(self) -> None:
            self.stopping = True

    cell_task = ray.remote(run_on_node).options(max_retries=MAX_RETRIES, **task_resources(ray.cluster_resources()))
    here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False)
    attempts = Attempts.options(scheduling_strategy=here).remote()  # type: ignore[attr-defined]  # with the driver
    refs = {cell_task.remote(job, attempts): job for job in jobs}
    pending, records = list(refs), []
    try:
        while pending:
            ready, pending = ray.wait(pending, num_returns=1, timeout=1.0)
            for ref in ready:
                try:
                    record, log = ray.get(ref)
                except Exception as exc:  # the task failed past its retries: the harness failed this cell
                    job = refs[ref]
                    record = skipped_record(run_id, job.env.name, job.backend, job.item,
                                            f"the cluster lost this cell: {str(exc).splitlines()[0][:200]}",
                                            status=Status.HARNESS_ERROR)
                    log = ""
                records.append(record)
                done(record, log)
    except BaseException:
        # No ray.cancel: cancelling a task as it completes crashes Ray's core worker (a race of the
        # cancel with the task's reply, ray-project/ray#54798, still seen with Ray 2.60). Cells not
        # started yet start nothing; the running ones end when their containers are removed below.
        ray.get(attempts.stop.remote(), timeout=15)
        _remove_everywhere(ray, NodeAffinitySchedulingStrategy, run_id)
        ray.wait(pending, num_returns=len(pending), timeout=30)
        raise
    _remove_everywhere(ray, NodeAffinitySchedulingStrategy, run_id)
    return records


def _remove_everywhere(ray: Any, strategy: Any, run_id: str) -> None:
    """A last task on every live node removes whatever container of this run is left there."""
    cleaners = [ray.remote(remove_run_containers).options(
        num_cpus=0, scheduling_strategy=strategy(node["NodeID"], soft=False)).remote(run_id)
        for node in ray.nodes() if node.get("Alive")]
    ray.wait(cleaners, num_returns=len(cleaners), timeout=60)


def node_checks() -> list[tuple[dict[str, Any], list[Any]]]:
    """`doctor` on every live node: (the node, its checks)."""
    ray = _ray()
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    def check() -> tuple[dict[str, Any], list[Any]]:
        from harness.environments.doctor import run_checks

        nvml = Nvml.open()
        try:
            return node_facts(), run_checks(nvml)
        finally:
            nvml.close()

    task = ray.remote(check)
    refs = [task.options(num_cpus=0, scheduling_strategy=NodeAffinitySchedulingStrategy(node["NodeID"], soft=False)).remote()
            for node in ray.nodes() if node.get("Alive")]
    return list(ray.get(refs, timeout=300))

