"""Ctrl-C or SIGTERM in a run: the cells it cut are the user's doing, and --resume runs them again."""
from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from harness.common.commands import command
from harness.measurement.backends.base import Backend
from harness.model.record import RUN_AGAIN, CellRecord, ErrorKind, Status
from harness.store import results


def finished(path: Path) -> bool:
    """A readable record of a cell that was neither cut by the user, nor dropped by its engine, nor
    left unrun because its environment failed to build or start (a wheel missing offline, a disk
    full, the machine gone mid-build): --resume leaves it alone."""
    try:
        record = results.load_record(results.kept_path(path))
        return bool(record.get("status") != Status.INTERRUPTED and (record.get("error") or {}).get("type") not in RUN_AGAIN)
    except (OSError, EOFError, ValueError, AttributeError):
        return False


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM during a run: names the run folder that keeps what finished."""

    def __init__(self, run_dir: Path) -> None:
        super().__init__(str(run_dir))
        self.run_dir = run_dir


def mark(record: CellRecord, run_dir: Path) -> None:
    """A cell the user stopped: a harness status, never the scenario's; --resume runs it again."""
    record["status"] = Status.INTERRUPTED
    again = command("matrix", "--resume", str(run_dir))
    record["error"] = {"type": ErrorKind.INTERRUPTED.value, "message": "stopped by Ctrl-C or SIGTERM before it ended; "
                       f"nothing follows about the scenario: `{again}` runs it again"}
    from harness.judgement import verdicts  # here: the judge loads while the cell runs (cli/warm)
    record["verdicts"] = verdicts.judge(record)


def sweep_containers(backends: Iterable[Backend], run_id: str) -> None:
    """No container of a stopped run outlives it, whatever race its last start was in."""
    from harness.measurement.backends import docker as docker_backend  # here: only a stopped run looks for containers
    from harness.measurement.backends.owned_containers import remove_labelled

    for backend in backends:
        if isinstance(backend, docker_backend.DockerBackend):
            try:
                remove_labelled(backend.client, run_id)
            except Exception:
                pass  # the engine went away: `harness clean` removes them later
