"""The processes a cell record names (measurement/runner.py writes them): everyone on the cell's GPUs at a
checkpoint, what the harness killed as the cell ended, the script's forks that failed, the agent itself, and
each process as the timeline saw it (measurement/process_spans.py). Keys a part does not name are kept as they
came, as in every part of the record."""
from __future__ import annotations

from typing_extensions import Required, TypedDict


class GpuProcess(TypedDict, total=False):
    """A process NVML lists on one of the cell's GPUs at a checkpoint."""

    pid: Required[int]  # the host's
    bytes: int | None
    in_cell: bool  # the script's, or one it started
    command: str
    gpu: int  # which GPU, where the cell was given several


class KilledProcess(TypedDict, total=False):
    """A process still running as the cell ended, which the harness then killed."""

    pid: Required[int]
    role: str  # "script", or "started by the script"
    command: str
    rss: int | None
    gpu: int | None  # its GPU memory; None where NVML could not tell


class ChildFailed(TypedDict, total=False):
    """A process the script forked that exited with a failing code (its PID as the script saw it)."""

    pid: int | None
    code: int | None
    t: float | None


class AgentInfo(TypedDict, total=False):
    """The agent's own process: the Python that ran the scenario."""

    pid: int | None
    python: str | None
    executable: str | None


class GpuSpan(TypedDict):  # a process on one GPU: the most it held (at peak_t, epoch s); last: at its last sight
    peak: int
    peak_t: float
    last: int
    last_t: float


class ProcessSpan(TypedDict, total=False):  # one of the cell's processes as the timeline saw it
    pid: Required[int]  # host PID, as NVML gives it
    ppid: int | None
    command: str
    first_t: float  # first and last sample that saw it alive (epoch s)
    last_t: float
    gpus: dict[str, GpuSpan]  # GPU index -> what it held there


class CellError(TypedDict):
    cell: int
    type: str
    message: str


class NotebookRun(TypedDict, total=False):
    """How a notebook ran (agent/notebook.py): its cells [first, last] in one IPython shell, each cell that raised,
    the lines not run (installs, shell escapes), IPython's version and where it came from."""

    cells: list[int]
    errors: list[CellError]
    not_run: list[str]
    ipython: str
    origin: str


for _part in (GpuProcess, KilledProcess, ChildFailed, AgentInfo, ProcessSpan, NotebookRun):
    setattr(_part, "__pydantic_config__", {"extra": "allow"})  # noqa: B010
