"""Running one cell: start it, measure at every checkpoint, record what happened.

The loop: wait for the agent's next event; at a checkpoint, read every meter until it settles,
record the reading with the framework's view, then acknowledge so the agent moves on. The cell
ends with the agent's ``end`` event (ok / error / unsupported), with its process dying first
(crashed), or at its timeout (timeout: the whole process tree is killed). One more reading is
taken once everything has exited. Whatever happens, the record comes back: a cell's failure is
a result, never an exception.
"""
from __future__ import annotations

import contextlib
import datetime as dt
import os
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from harness import __version__
from harness.common.events import Event
from harness.measurement import agent_messages as messages
from harness.measurement import procs
from harness.measurement.backends.base import Backend, CellSpec, RunningCell
from harness.measurement.meters import Meters, PidTracker, TimelineSampler
from harness.measurement.nvml import Nvml
from harness.measurement.protocol import EOF_EVENT, HostChannel
from harness.measurement.scenario import Scenario
from harness.measurement.unrun import engine_lost, not_started, scenario_facts
from harness.model.processes import GpuProcess, KilledProcess
from harness.model.readings import Readings
from harness.model.record import SCHEMA_VERSION, TIMELINE_COLUMNS, AfterExit, CellRecord, Checkpoint, Environment, Host, Status
from harness.store.results import log_path

DEFAULT_TIMEOUT_S = 300.0

@dataclass(frozen=True, kw_only=True)
class CellOptions:
    run_id: str
    run_dir: Path
    env_name: str
    env_facts: dict[str, Any]
    params: dict[str, Any]
    timeout: float | None = None
    gpu_index: int = 0
    gpu_indices: tuple[int, ...] = ()  # a bug report's script: every GPU it is given (matrix cells: one, gpu_index)
    all_gpus: bool = False  # gpu_indices are every GPU of the host: nothing to pin
    cpu_only: bool = False  # no GPU for this cell: the scenario's cpu_params apply
    setenv: dict[str, str] = field(default_factory=dict)  # the user's variables, over the scenario's


def _host_facts(nvml: Nvml, gpu_index: int, gpu_indices: tuple[int, ...]) -> Host:
    gpu = nvml.gpus[gpu_index] if nvml.available and gpu_index < len(nvml.gpus) else None
    host: Host = {
        "nvml_available": nvml.available,
        "nvml_reason": nvml.reason or None,
        "driver": nvml.driver,
        "nvml_version": nvml.nvml_version,
        "gpu_index": gpu_index if gpu else None,
        "gpu": None if gpu is None else {
            "name": gpu.name, "uuid": gpu.uuid, "total_bytes": gpu.total_bytes, "mig_mode": gpu.mig_mode,
            "compute_capability": ".".join(map(str, gpu.compute_capability)) if gpu.compute_capability else None,
        },
        "hostname": os.uname().nodename,
    }
    if gpu_indices:
        host["gpu_indices"] = list(gpu_indices)
    return host


def _events_folder(folders: contextlib.ExitStack) -> Path:
    """Where a script's spawned and forked workers leave their checkpoints (a container's user writes it)."""
    folder = Path(folders.enter_context(tempfile.TemporaryDirectory(prefix="harness-events-")))
    folder.chmod(0o777)
    return folder


def run_cell(
    backend: Backend,
    scenario: Scenario,
    options: CellOptions,
    nvml: Nvml,
    progress: Event | None = None,
) -> CellRecord:
    """Run ``scenario`` once through ``backend``; return its judged record."""
    notify = progress or (lambda kind, data: None)
    timeout = options.timeout or scenario.timeout or DEFAULT_TIMEOUT_S
    cpu_params = scenario.cpu_params if options.cpu_only else {}
    params = {**scenario.params, **cpu_params, **options.params}
    meters = Meters(nvml, options.gpu_index, options.gpu_indices)
    cell_id = uuid.uuid4().hex[:12]
    record: CellRecord = {
        "schema_version": SCHEMA_VERSION,
        "tool_version": __version__,
        "run_id": options.run_id,
        "cell_id": cell_id,
        "env": cast(Environment, {"name": options.env_name, **options.env_facts, **backend.describe()}),  # facts as planned
        "scenario": scenario_facts(scenario, params),
        "host": _host_facts(nvml, options.gpu_index, options.gpu_indices),
        "timeout_s": timeout,
        "setenv": dict(options.setenv),
        "started_at": dt.datetime.now(dt.timezone.utc).isoformat(),
        "checkpoints": [],
        "status": Status.CRASHED,
        "error": None,
        "exit_code": None,
        "facts": {},
    }
    record["baseline"] = meters.read(set())
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="harness-ack-") as ack_dir, contextlib.ExitStack() as folders:
        os.chmod(ack_dir, 0o755)  # a container's non-root user must read the acks
        spec = CellSpec(
            run_id=options.run_id, cell_id=cell_id, env_name=options.env_name, scenario=scenario,
            nonce=uuid.uuid4().hex, params=params, env_vars={**scenario.env, **options.setenv},
            ack_dir=Path(ack_dir), timeout=timeout, gpu_index=options.gpu_index if nvml.available else None,
            gpu_indices=options.gpu_indices, all_gpus=options.all_gpus,
            log_path=log_path(options.run_dir, options.env_name, scenario.name),
            events_dir=_events_folder(folders) if scenario.mode == "repro" and not scenario.launch else None,
        )
        record["harness_env"] = spec.gpu_pin()  # what the harness set, and only that, is named as its own
        try:
            cell = backend.start(spec)
        except Exception as exc:  # e.g. the engine refused the container: a result, not a crash
            return not_started(record, exc, started, notify, options.run_dir)
        record["env"].update(cast(Environment, cell.facts))
        tracker = PidTracker(cell.root_pid)
        channel = HostChannel(spec.nonce, ack_dir)
        try:
            channel.follow(cell.lines())
            if spec.events_dir is not None:
                channel.watch(str(spec.events_dir))
            with TimelineSampler(meters, tracker) as sampler:
                if _converse(channel, meters, tracker, record, started + timeout, notify):
                    _await_exit(channel, cell, record, started + timeout)
        finally:
            channel.closed.set()
            tracker.current(force=True)
            procs.let_helpers_end(tracker.seen, record.get("script_pid"))  # a resource tracker ends on its own
            record["killed"] = _still_running(meters, tracker, record.get("script_pid"))
            cell.stop(tracker.seen)
        lost = cell.lost() if record["status"] in (Status.CRASHED, Status.TIMEOUT) else None
        if lost:  # the engine went away under the cell: nothing follows about the script
            record.update({"status": Status.HARNESS_ERROR, "error": engine_lost(lost, options.run_dir)})
        if record["status"] == Status.CRASHED and record["error"] is None:
            code = record["exit_code"] if record["exit_code"] is not None else cell.wait(1.0)
            record["exit_code"] = code
            how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit code {code}"
            record["error"] = {"type": "Crashed", "message": f"the process ended without reporting ({how})"}
        record["after_exit"] = _after_exit(meters, tracker, record.get("baseline"))
        record["timeline"] = {"columns": TIMELINE_COLUMNS, "samples": sampler.samples, "rate_hz": sampler.rate_hz(),
                              "processes": sampler.spans.as_record()}
        record["stderr_tail"] = cell.stderr_tail()
        record["stray_stdout"] = channel.stray_lines[-50:]
    record["duration_s"] = round(time.monotonic() - started, 3)
    from harness.judgement import verdicts  # here: the judge loads while the cell runs (cli/warm)
    record["verdicts"] = verdicts.judge(record)
    notify("done", record)
    return record


def _converse(
    channel: HostChannel, meters: Meters, tracker: PidTracker, record: CellRecord, deadline: float, notify: Event
) -> bool:
    """Serve the agent's events until it ends (True), dies or runs out of time (False)."""
    while True:
        event = channel.next_event(deadline - time.monotonic())
        if event is None:
            last = record["checkpoints"][-1]["label"] if record["checkpoints"] else "no checkpoint"
            record["status"] = Status.TIMEOUT
            record["error"] = {"type": "Timeout", "message": f"no end after {record['timeout_s']:.0f}s; last seen: {last}"}
            return False
        if event is EOF_EVENT:
            return False  # stdout closed without ``end``: status stays "crashed"
        if event.kind == "hello":
            hello = cast(messages.Hello, event.data)
            messages.hello(record, hello)
            record["script_pid"] = procs.host_pid(tracker.current(force=True), int(hello.get("pid") or 0))
        elif event.kind == "child-exit":
            messages.child_exit(record, cast(messages.Exited, event.data))
        elif event.kind == "exit":  # the reaper saw the script's process end before its last line
            record["exit_code"] = cast(messages.Exited, event.data).get("code")
            return False
        elif event.kind == "checkpoint":
            said = cast(messages.Said, event.data)
            if said.get("frameworks"):  # imported so far: kept even if the cell never ends
                record["facts"]["frameworks"] = dict(said["frameworks"])
            readings, settle = meters.read_settled(tracker)
            checkpoint: Checkpoint = {
                "seq": said["seq"], "label": said["label"], "t": said["t"],
                "readings": readings, "settle": settle, "view": said.get("view") or {},
            }
            held = _gpu_processes(meters, tracker.current())
            if held is not None:  # who holds what: the script, its children, anyone else on the GPU
                checkpoint["gpu_processes"] = held
            per_gpu = meters.per_gpu(tracker.current())
            if per_gpu:
                checkpoint["per_gpu"] = per_gpu
            messages.checkpoint(said, checkpoint)
            if (pid := said.get("pid")) is not None:  # in a container its PID is not the host's, which NVML gives
                host = procs.host_pid(tracker.current(), pid)
                if host is not None:
                    checkpoint["host_pid"] = host
            if said.get("baseline"):
                record["pre_gpu"] = checkpoint  # the agent's reading before any scenario code
            else:
                record["checkpoints"].append(checkpoint)
            notify("checkpoint", checkpoint)
            channel.ack(said["seq"])
        elif event.kind == "end":
            messages.end(record, cast(messages.End, event.data))
            return True


def _await_exit(channel: HostChannel, cell: RunningCell, record: CellRecord, deadline: float) -> None:
    """A script's exit is its own: after its last line it may take until the cell's timeout to
    end (compile workers shutting down, atexit handlers, non-daemon threads); how long it took is
    recorded (``exit_s``), and only a process still there at the timeout is a ``timeout``. The
    reaper reports the exit as it happens: processes the script left running, which may hold the
    cell's pipes for good, do not hold the cell."""
    ended = time.monotonic()
    while True:
        event = channel.next_event(deadline - time.monotonic())
        if event is None:
            break
        if event is EOF_EVENT:  # no reaper's word (it was killed): the process's own code, if it has one
            record["exit_code"] = cell.wait(max(0.0, min(1.0, deadline - time.monotonic())))
            break
        if event.kind == "child-exit":
            messages.child_exit(record, cast(messages.Exited, event.data))
        elif event.kind == "exit":
            record["exit_code"] = cast(messages.Exited, event.data).get("code")
            break
    if record["exit_code"] is not None:
        record["exit_s"] = round(time.monotonic() - ended, 3)
    elif record["status"] != Status.CRASHED:
        record["status"] = Status.TIMEOUT
        record["error"] = {"type": "Timeout", "message": (
            f"the script's last line ran, but its process had not exited {deadline - ended:.0f} s later, at the "
            f"cell's {record['timeout_s']:.0f} s timeout (a non-daemon thread, an atexit handler or a child it "
            "waits for keeps it alive)")}


def _gpu_processes(meters: Meters, cell: set[int]) -> list[GpuProcess] | None:
    """Every process on the cell's GPUs with what it holds there (``gpu``: which one, where the
    script sees several), or None where NVML cannot list them."""
    found: list[GpuProcess] = []
    for index in meters.gpus:
        on_gpu = meters.nvml.processes(index)
        if on_gpu is None:
            return None
        for pid, used in sorted(on_gpu.items()):
            found.append(GpuProcess(pid=pid, bytes=used, in_cell=pid in cell, command=procs.command_line(pid, 120)))
            if len(meters.gpus) > 1:
                found[-1]["gpu"] = index
    return found


def _still_running(meters: Meters, tracker: PidTracker, script: int | None) -> list[KilledProcess]:
    """What the harness is about to kill as the cell ends: the script's own process when it did not
    end (timeout), and any process it started that outlived it (a detached child, a daemon), each
    named with its PID, command line and memory, so a report never hides them."""
    alive = sorted(p for p in tracker.seen if procs.alive(p))
    on_gpu = meters.nvml.processes(meters.gpu_index) if alive else None  # one NVML query for them all
    return [{"pid": pid, "role": "script" if pid == script else "started by the script",
             "command": procs.command_line(pid), "rss": procs.rss_bytes([pid]),
             "gpu": None if on_gpu is None else on_gpu.get(pid, 0)} for pid in alive]


def _after_exit(meters: Meters, tracker: PidTracker, before: Readings | None) -> AfterExit:
    """One more reading once the cell is gone: what it leaves behind (at once where the GPU is as ``before`` it)."""
    left = {pid for pid in tracker.seen if procs.alive(pid)}
    readings, settle = meters.read_settled(PidTracker(lambda: None), None if left else before)
    readings["nvml_process"] = meters.nvml.process_used(meters.gpu_index, tracker.seen)
    readings["rss"] = procs.rss_bytes(left) if left else None
    return {"readings": readings, "settle": settle, "processes_left": sorted(left)}
