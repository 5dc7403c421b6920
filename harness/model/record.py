"""The cell record as a typed model: what one cell measured, as the store keeps it on disk.

pydantic v2 (not plain dataclasses) because a record crosses a trust boundary: it is read back
from files written by older versions of the tool, hand-copied or truncated, and the store must
refuse a malformed one in one line instead of failing deep inside a renderer; pydantic validates
at that boundary (in Rust, fast enough for the atlas's ~1,000 records) and generates the JSON
Schema the package ships (``record.schema.json``). Keys this model does not name are kept
(``extra="allow"``) and written back unchanged, so a record from a newer or older tool loses
nothing by being read. ``to_dict`` gives back exactly the keys that were set: a record read and
written again is byte-identical.

This module holds data only: no judging (judgement/), no files (store/).
"""
from __future__ import annotations

from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = 1  # of the record on disk; store/upgrade.py brings older ones to it
TIMELINE_COLUMNS = ["t", "rss", "nvml_device", "nvml_process"]  # a timeline sample, in this order


class Status(str, Enum):
    """How a cell ended. ``ok``: the scenario ran to its end (its verdicts say what the memory
    did); the script's failures (error, unsupported, timeout, crashed) and the harness's
    (harness-error, interrupted, skipped) are told apart, since only the harness's are run again."""

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
    """The harness's own error types (a record's ``error.type``); a script's exception keeps its
    own class name there (``RuntimeError``)."""

    SKIPPED = "Skipped"
    INTERRUPTED = "Interrupted"
    HARNESS_ERROR = "HarnessError"
    ENGINE_LOST = "EngineLost"
    START_FAILED = "StartFailed"
    ENVIRONMENT_FAILED = "EnvironmentFailed"
    TIMEOUT = "Timeout"
    CRASHED = "Crashed"


RUN_AGAIN = (ErrorKind.ENGINE_LOST, ErrorKind.ENVIRONMENT_FAILED, ErrorKind.START_FAILED)  # --resume retries these


class _Open(BaseModel):
    """A part of a record: named keys typed, other keys kept as they came."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    def to_dict(self) -> dict[str, Any]:
        """The keys that were set, as JSON types (enums as their values)."""
        return self.model_dump(mode="json", exclude_unset=True, by_alias=True)


class Readings(_Open):
    """Bytes per meter at one instant; ``None`` where the meter could not read (never 0)."""

    rss: int | None = None
    nvml_device: int | None = None
    nvml_process: int | None = None


class Settle(_Open):
    settled: bool | None = None
    settle_s: float | None = None


class Checkpoint(_Open):
    label: str
    seq: int | None = None
    t: float | None = None
    readings: Readings = Field(default_factory=Readings)
    view: dict[str, dict[str, Any]] = Field(default_factory=dict)  # the framework's own counts, by framework
    settle: Settle | None = None
    skipped: str | None = None  # why the scenario said this step means nothing here
    gpu_processes: list[dict[str, Any]] | None = None
    per_gpu: dict[str, dict[str, int | None]] | None = None  # GPU index -> its device and process readings
    rank: int | None = None  # the launcher's rank of the process that took it
    pid: int | None = None  # that process, as it saw itself


class Scenario(_Open):
    name: str
    path: str | None = None
    title: str | None = None
    technique: str | None = None
    families: list[str] = Field(default_factory=list)
    params: dict[str, Any] = Field(default_factory=dict)
    env: dict[str, str] = Field(default_factory=dict)
    cleanup: list[str] | None = None
    meter: str | None = None
    mode: str | None = None
    seed: str | None = None
    command: str | None = None  # repro: the command as the user gave it (a launcher's, or the script's arguments)
    launcher: bool | None = None  # repro: run by a launcher; its processes are judged together


class Environment(_Open):
    name: str
    backend: str | None = None
    family: str | list[str] | None = None
    variant: str | None = None
    image: str | None = None


class Gpu(_Open):
    name: str | None = None
    uuid: str | None = None
    total_bytes: int | None = None
    mig_mode: bool | None = None


class Host(_Open):
    driver: str | None = None
    gpu: Gpu | None = None
    gpu_index: int | None = None
    hostname: str | None = None
    nvml_available: bool | None = None
    nvml_reason: str | None = None
    nvml_version: str | None = None


class ErrorInfo(_Open):
    type: str
    message: str | None = None

    @property
    def kind(self) -> ErrorKind | None:
        """The harness's error kind, or None for the script's own exception."""
        try:
            return ErrorKind(self.type)
        except ValueError:
            return None


class AfterExit(_Open):
    readings: Readings = Field(default_factory=Readings)
    processes_left: list[int] = Field(default_factory=list)  # PIDs of the cell still alive as it ended


class Timeline(_Open):
    columns: list[str] = Field(default_factory=lambda: list(TIMELINE_COLUMNS))
    samples: list[list[int | float | None]] = Field(default_factory=list)
    rate_hz: float | None = None


class CellRecord(_Open):
    """One cell: a scenario (or a user's script) in one environment, measured or not."""

    schema_version: int = SCHEMA_VERSION
    tool_version: str | None = None
    run_id: str | None = None
    cell_id: str | None = None
    env: Environment
    scenario: Scenario
    status: Status
    error: ErrorInfo | None = None
    checkpoints: list[Checkpoint] = Field(default_factory=list)
    baseline: Readings | None = None
    pre_gpu: Readings | None = None
    after_exit: AfterExit | None = None
    timeline: Timeline | None = None
    facts: dict[str, Any] = Field(default_factory=dict)
    host: Host | None = None
    exit_code: int | None = None
    script_pid: int | None = None
    killed: list[dict[str, Any]] | None = None
    duration_s: float | None = None
    started_at: str | None = None
    stderr_tail: str | None = None
    verdicts: dict[str, Any] | None = None  # the judgement made when the cell ended (its ``rules_version``); re-judged on read

    @property
    def harness_failed(self) -> bool:
        """The harness's failure (the cell could not start, its engine was lost): --resume runs it again."""
        return self.error is not None and self.error.kind in RUN_AGAIN


def parse(raw: dict[str, Any]) -> CellRecord:
    """A record as the store read it (already upgraded): validated, or a pydantic ValidationError."""
    return CellRecord.model_validate(raw)
