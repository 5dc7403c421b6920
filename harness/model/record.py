"""The cell record as a typed model: what one cell measured, as the store keeps it on disk.

The record is a JSON object, and the code handles it as one: each part is a ``TypedDict``, so the dicts the runner
writes and the renderers read are checked by ``mypy --strict`` (a misspelt key fails it; ``tools/mypy_record_keys.py``
extends that to ``.get``) with no copy into another class and no change in what is written: a record read and written
again is byte-identical. pydantic v2 validates that same definition where a record crosses a trust boundary (the store
reads files by older tools, hand-copied or truncated, refusing a malformed one in one line, not deep inside a renderer),
in Rust, and makes the JSON Schema (``record.schema.json``); keys it does not name are kept. Data only: no judging, no files.
"""
from __future__ import annotations

import functools
from collections.abc import Mapping
from enum import Enum
from typing import Any, Literal, cast

from typing_extensions import Required, TypedDict

from harness.model.facts import Facts
from harness.model.holders import Holders
from harness.model.judged import Judged
from harness.model.leftover import HeapTrim
from harness.model.processes import AgentInfo, ChildFailed, GpuProcess, KilledProcess, NotebookRun, ProcessSpan
from harness.model.readings import Readings, Settle

SCHEMA_VERSION = 1  # of the record on disk; store/upgrade.py brings older ones to it
Meter = Literal["rss", "nvml_device", "nvml_process"]
METERS: tuple[Meter, ...] = ("rss", "nvml_device", "nvml_process")
TIMELINE_COLUMNS = ["t", "rss", "nvml_device", "nvml_process"]  # a timeline sample, in this order


class Status(str, Enum):
    """How a cell ended. ``ok``: the scenario ran to its end (its verdicts say what the memory did); the script's
    failures (error, unsupported, timeout, crashed) and the harness's (harness-error, interrupted, skipped) told apart."""

    def __str__(self) -> str:  # printed and formatted as the plain string the file holds
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)

    OK = "ok"
    ERROR = "error"
    UNSUPPORTED = "unsupported"
    TIMEOUT = "timeout"
    CRASHED = "crashed"
    HARNESS_ERROR = "harness-error"
    INTERRUPTED = "interrupted"
    SKIPPED = "skipped"


SCRIPT_FAILURES = (Status.ERROR, Status.UNSUPPORTED, Status.TIMEOUT, Status.CRASHED)


class ErrorKind(str, Enum):
    """The harness's own error types (``error.type``); a script's exception keeps its class name there."""

    SKIPPED = "Skipped"
    INTERRUPTED = "Interrupted"
    HARNESS_ERROR = "HarnessError"
    ENGINE_LOST = "EngineLost"
    START_FAILED = "StartFailed"
    ENVIRONMENT_FAILED = "EnvironmentFailed"
    TIMEOUT = "Timeout"
    CRASHED = "Crashed"


RUN_AGAIN = (ErrorKind.ENGINE_LOST, ErrorKind.ENVIRONMENT_FAILED, ErrorKind.START_FAILED)  # --resume retries these


class FrameworkView(TypedDict, total=False):
    """A framework's own count of its memory at a checkpoint (agent/framework_view.py); None: not said."""
    in_use: int | None  # bytes it counts as live
    reserved: int | None  # bytes its allocator holds from the driver (its pool, live blocks included)
    peak: int | None
    per_device: dict[str, int]  # several GPUs: in use and reserved per device
    per_device_reserved: dict[str, int]
    segments: int  # torch: segments holding live blocks, which empty_cache() cannot return
    inactive_split: int


class Checkpoint(TypedDict, total=False):
    label: Required[str]
    seq: int | str | None  # a spawned worker's: "p<pid>-<n>"
    t: float | None
    readings: Readings
    view: dict[str, FrameworkView]  # the framework's own counts, by framework
    settle: Settle | None
    skipped: str | None  # why the scenario said this step means nothing here
    gpu_processes: list[GpuProcess] | None
    per_gpu: dict[str, dict[str, int | None]] | None  # GPU index -> its device and process readings
    rank: int | None  # the launcher's (or torch.multiprocessing.spawn's) rank of the process that took it
    spawned: bool | None  # taken in a worker the script spawned (agent/spawned.py)
    pid: int | None  # that process, as it saw itself
    host_pid: int | None  # the same process as the host sees it (a container has its own PID namespace)
    holders: Holders | None  # the objects that hold the framework's memory, largest first (agent/holders.py)
    sizes: dict[str, int] | None  # a loop's sampled iteration: the lengths of the script's containers, by name
    note: dict[str, str] | None  # how the step was reached, where its answer depends on it: {"without": "cuBLAS", "cause": ...}


class Scenario(TypedDict, total=False):
    name: Required[str]
    path: str | None
    title: str | None
    technique: str | None
    families: list[str]
    params: dict[str, Any]
    env: dict[str, str]
    cleanup: list[str] | None
    meter: str | None
    mode: str | None
    seed: str | None
    command: str | None  # repro: the command as the user gave it (a launcher's, or the script's arguments)
    launcher: bool | None  # repro: run by a launcher; its processes are judged together
    notebook: bool | None  # repro: a notebook's cells in one IPython shell (the record's ``notebook`` says how they ran)
    gpu_only: str | None  # why the scenario shows nothing without a GPU (its META)
    notes: list[str]  # what the scenario's author wants a reader of its result to know


class Environment(TypedDict, total=False):
    name: Required[str]
    backend: str | None
    kind: str | None  # build (an image or venv the harness builds), image (the user's), process
    family: str | list[str] | None
    variant: str | None
    image: str | None
    image_id: str | None
    image_labels: dict[str, str]
    container: str | None
    user: str | None
    gpu_mode: str | None  # how the container was given the GPU (docker backend)
    gpu_note: str | None
    gpu_request: str | None
    interpreter: str | None  # the Python that ran the cell (process backend)
    library_path: str | None  # a virtualenv's own library folders, first on LD_LIBRARY_PATH (its CUDA wheels)
    cuda_aliases: list[str]  # older sonames it linked to its CUDA wheels' newer ones ("libcusolver.so.10=...so.11")
    cuda_path: str | None  # its CUDA wheel whose headers the release compiled with, its cells' CUDA_PATH (CuPy 8)
    cuda_libraries: list[str]  # CUDA libraries fetched for it: "deb:POOL-PATH" of Ubuntu's, "wheel:PIN:MEMBER"
    base: str | None  # what a built environment was built from
    packages: list[str]
    pin: str | None
    python_version: str | None
    index_url: str | None  # the index pip was given beside PyPI: a virtualenv's as it was made (None: PyPI alone)
    index_note: str | None  # why that is not the index the environment asked for (venvs.sources_of)


class Gpu(TypedDict, total=False):
    name: str | None
    uuid: str | None
    total_bytes: int | None
    mig_mode: bool | None
    compute_capability: str | None  # "9.0": which CUDA first had code for it (judgement/failures.py)


class Host(TypedDict, total=False):
    driver: str | None
    gpu: Gpu | None
    gpu_index: int | None
    hostname: str | None
    nvml_available: bool | None
    nvml_reason: str | None
    nvml_version: str | None
    gpu_indices: list[int]  # every GPU the cell was given (repro: the script's GPUs)


class ErrorInfo(TypedDict, total=False):
    type: Required[str]
    message: str | None
    traceback: str | None
    why: str | None  # the harness lost the cell: what happened, in one line
    resume: str | None  # the command that runs the lost cells again


class AfterExit(TypedDict, total=False):
    readings: Readings
    processes_left: list[int]  # PIDs of the cell still alive as it ended
    settle: Settle | None


class Timeline(TypedDict, total=False):
    columns: list[str]
    samples: list[list[int | float | None]]
    rate_hz: float | None
    processes: list[ProcessSpan]


class CellRecord(TypedDict, total=False):
    """One cell: a scenario (or a user's script) in one environment, measured or not."""

    schema_version: int
    tool_version: str | None
    run_id: str | None
    cell_id: str | None
    env: Required[Environment]
    scenario: Required[Scenario]
    status: Required[Status]
    error: ErrorInfo | None
    checkpoints: list[Checkpoint]
    baseline: Readings | None  # the GPU before the cell started, read by the host
    pre_gpu: Checkpoint | None  # the agent's checkpoint before any scenario code
    after_exit: AfterExit | None
    timeline: Timeline | None
    facts: Facts
    host: Host | None
    exit_code: int | None
    script_pid: int | None
    killed: list[KilledProcess] | None
    duration_s: float | None
    started_at: str | None
    stderr_tail: str | None
    stray_stdout: list[str]  # what the script printed outside the harness's protocol (last 50 lines)
    timeout_s: float
    setenv: dict[str, str]  # the user's variables (--setenv), over the scenario's
    harness_env: dict[str, str] | None  # what the harness set in the cell's environment, and only that
    env_seen: dict[str, str]  # memory-relevant variables, as the cell saw them
    agent: AgentInfo  # the agent's pid, python and executable
    script_exit_code: int | None  # what the script itself ended with (the agent's exit code may differ)
    exit_s: float | None  # how long the script's process took to exit after its last line
    loops: dict[str, int]  # looped checkpoint site -> iterations run
    heap_trim: HeapTrim  # once `end` was measured: the C allocator's free heap, uncollected cycles (leftover.py)
    notebook: NotebookRun  # a notebook's run: cells [first, last], errors per cell, IPython's version, lines not run
    children_exited: int  # child processes that reported their end (children_failed: those that failed)
    children_failed: list[ChildFailed]
    node: dict[str, Any] | None  # Ray: the node that ran the cell (hostname, ip, node_id)
    attempt: int | None  # Ray: which try of the cell this is (retried: whether it was run again)
    retried: bool | None
    verdicts: Judged | None  # the judgement made when the cell ended (its ``rules_version``); re-judged on read


PARTS = (Readings, FrameworkView, Settle, Checkpoint, Scenario, Environment, Gpu, Host, ErrorInfo, AfterExit, Timeline,
         CellRecord)
for _part in PARTS:  # keys a part does not name are kept as they came (pydantic's with_config, without importing it)
    setattr(_part, "__pydantic_config__", {"extra": "allow"})  # noqa: B010


@functools.cache
def adapter() -> Any:
    """pydantic's validator of the record (and its JSON Schema), built on first use (0.1 s a start spared)."""
    from pydantic import TypeAdapter
    return TypeAdapter(CellRecord)


def parse(raw: Any) -> CellRecord:
    """``raw`` checked against the model (else pydantic's ValidationError), given back as it came (not the copy)."""
    adapter().validate_python(raw)
    return raw  # type: ignore[no-any-return]


def problem(exc: Exception) -> str:
    """Why a file is not a record, in one line: pydantic's first complaint with where it is, else the error."""
    from pydantic import ValidationError
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        return f"not a valid record: {where}: {first['msg']} ({exc.error_count()} problem(s))"
    return str(exc)


def error_kind(error: ErrorInfo | None) -> ErrorKind | None:
    """The harness's error kind, or None for the script's own exception (or no error)."""
    try:
        return ErrorKind(error.get("type")) if error else None
    except ValueError:
        return None


def harness_failed(record: CellRecord) -> bool:
    """The harness's failure (the cell could not start, its engine was lost): --resume runs it again."""
    return error_kind(record.get("error")) in RUN_AGAIN


def meter_value(readings: Readings | None, meter: str) -> int | None:
    """One meter's bytes by its name (the judged meter is chosen at run time), or None."""
    value = cast(Mapping[str, Any], readings or {}).get(meter)
    return int(value) if value is not None else None


def process_of(checkpoint: Checkpoint) -> int | None:
    """The host PID of the process that took ``checkpoint`` (NVML's are the host's), or its own in an older record."""
    return checkpoint.get("host_pid") or checkpoint.get("pid")


def error_type(record: CellRecord) -> str | None:
    """The record's error type (a harness ErrorKind or the script's exception class), or None."""
    return (record.get("error") or ErrorInfo(type="")).get("type") or None  # .get: a hand-made record may lack it
