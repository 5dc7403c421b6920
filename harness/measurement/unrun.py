"""Records of cells that never ran or were dropped: skipped here, not started, or cut by a lost
engine. Each is a result with the reason and the fix, never an exception."""
from __future__ import annotations

import datetime as dt
import time
import uuid
from pathlib import Path
from typing import Any

from harness import __version__
from harness.common.commands import command
from harness.common.events import Event
from harness.judgement.gpu_use import NEEDS_GPU
from harness.measurement.backends.base import EngineLost
from harness.measurement.scenario import Scenario
from harness.model import record as record_model
from harness.model.record import SCHEMA_VERSION, CellRecord, ErrorInfo, ErrorKind, Status


def scenario_facts(scenario: Scenario, params: dict[str, Any]) -> record_model.Scenario:
    facts: record_model.Scenario = {
        "name": scenario.name, "path": str(scenario.path), "title": scenario.title,
        "families": list(scenario.families), "technique": scenario.technique, "seed": scenario.seed,
        "params": params, "env": scenario.env,
        "cleanup": list(scenario.cleanup) if scenario.cleanup is not None else None,
        "meter": scenario.meter,
        "mode": scenario.mode,
    }
    if scenario.gpu_only:
        facts["gpu_only"] = scenario.gpu_only
    if scenario.notes:
        facts["notes"] = list(scenario.notes)
    if scenario.command:
        facts["command"] = scenario.command
    if scenario.launch:
        facts["launcher"] = True
    if scenario.notebook:
        facts["notebook"] = True
    return facts


ERROR_OF = {Status.SKIPPED: ErrorKind.SKIPPED, Status.INTERRUPTED: ErrorKind.INTERRUPTED}


def skipped_record(run_id: str, env_name: str, backend: str, scenario: Scenario, reason: str,
                   status: Status = Status.SKIPPED) -> CellRecord:
    """The record of a cell that never ran: its environment cannot run here (skipped), or the
    harness lost it (``Status.HARNESS_ERROR``); a result, with the reason and fix."""
    record: CellRecord = {
        "schema_version": SCHEMA_VERSION, "tool_version": __version__, "run_id": run_id, "cell_id": uuid.uuid4().hex[:12],
        "env": {"name": env_name, "backend": backend},
        "scenario": scenario_facts(scenario, scenario.params),
        "status": status, "error": {"type": NEEDS_GPU if status == Status.UNSUPPORTED else
                                    ERROR_OF.get(status, ErrorKind.HARNESS_ERROR).value, "message": reason},
        "checkpoints": [], "facts": {},
        "exit_code": None, "after_exit": None, "timeline": None, "stderr_tail": "", "duration_s": 0.0,
        "started_at": dt.datetime.now(dt.timezone.utc).isoformat(),
    }
    from harness.judgement import verdicts  # here: the judge loads while the cell runs (cli/warm)
    record["verdicts"] = verdicts.judge(record)
    return record


ENGINE_LOST = ErrorKind.ENGINE_LOST.value


def engine_lost(why: str, run_dir: Path) -> ErrorInfo:
    """The error of a cell its engine dropped: the harness's failure, which --resume runs again."""
    again = command("matrix", "--resume", str(run_dir))
    return {"type": ENGINE_LOST, "why": why, "resume": again,
            "message": f"{why}: nothing follows about the script; `{again}` runs the cell again once the engine answers"}


def engine_down_record(run_id: str, env_name: str, backend: str, scenario: Scenario, why: str,
                       run_dir: Path) -> CellRecord:
    """A cell not started because its engine had stopped answering (a run stops starting cells then)."""
    record = skipped_record(run_id, env_name, backend, scenario, "", status=Status.HARNESS_ERROR)
    record["error"] = engine_lost(f"not started: {why}", run_dir)
    return record


def not_started(record: CellRecord, exc: Exception, started: float, notify: Event, run_dir: Path) -> CellRecord:
    message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    error: ErrorInfo = (engine_lost(message, run_dir) if isinstance(exc, EngineLost)
                        else {"type": ErrorKind.START_FAILED.value, "message": f"the cell could not start: {message}"})
    record.update({"status": Status.HARNESS_ERROR, "error": error, "after_exit": None, "timeline": None, "stderr_tail": "",
                   "stray_stdout": [], "duration_s": round(time.monotonic() - started, 3)})
    from harness.judgement import verdicts  # here: the judge loads while the cell runs (cli/warm)
    record["verdicts"] = verdicts.judge(record)
    notify("done", record)
    return record
