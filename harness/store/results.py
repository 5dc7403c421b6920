"""Results are files: one JSON record per cell, a manifest per run.

Layout: ``results/<run-id>/manifest.json`` and ``results/<run-id>/<env>/<scenario>.json``; a
record may be kept gzipped (``<scenario>.json.gz``, as the committed references are: their 100 Hz
timelines compress tenfold), and is read and rewritten as it is kept.
Every write goes to a temporary file in the same folder and is then ``os.replace``d, so a
reader never sees half a record and an interrupted run keeps every cell it finished.
Readers take only these files, so runs can be resumed, merged and re-rendered; an unreadable
file is reported as such, never a crash.
"""
from __future__ import annotations

import datetime as dt
import errno
import gzip
import io
import json
import os
import shutil
import tempfile
import uuid
from pathlib import Path
from typing import Any, cast

from harness.common.errors import ResultsUnwritable
from harness.common.units import human_bytes
from harness.model.judged import SweepSummary
from harness.model.manifest import Manifest
from harness.model.record import SCHEMA_VERSION, CellRecord, parse, problem
from harness.store.upgrade import upgraded

MIN_FREE_BYTES = 64 * 1024 * 1024  # a run's records, logs (capped per cell) and reports fit easily


def check_writable(folder: Path) -> None:
    """Fail now, in one line, where results cannot be written, rather than after cells ran. The folders the probe
    made are removed again: a run refused later (a bad pin) leaves no results folder; a run's own writes make them."""
    made = [p for p in (folder, *folder.parents) if not p.exists()]  # deepest first
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".harness-probe-", dir=folder)
        try:
            os.write(fd, b"\0" * 4096)
        finally:
            os.close(fd)
            os.unlink(probe)
        free = shutil.disk_usage(folder).free
    except OSError as exc:
        raise unwritable(folder, exc) from exc
    finally:
        for path in made:
            try:
                path.rmdir()
            except OSError:  # not empty (another run's), or never made: left as it is
                break
    if free < MIN_FREE_BYTES:
        raise ResultsUnwritable(f"cannot write results to {folder}: only {human_bytes(free)} free there (a run needs "
                                f"{human_bytes(MIN_FREE_BYTES)}); free some space or give --results a folder on another disk")


def unwritable(folder: Path, exc: OSError) -> ResultsUnwritable:
    """The one-line error for a write that failed under ``folder``."""
    cause = exc.strerror or str(exc)
    fix = {errno.ENOSPC: "free some space or give --results a folder on another disk",
           errno.EROFS: "give --results a folder on a writable filesystem",
           errno.EACCES: "give --results a folder you can write to"}.get(exc.errno or 0, "give --results another folder")
    return ResultsUnwritable(f"cannot write results to {folder}: {cause}; {fix}")


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


UMASK = _umask()  # read once at start-up, before any thread: setting it to read it is not thread-safe


def new_run_id() -> str:
    return dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ") + "-" + uuid.uuid4().hex[:6]


def _json_bytes(data: Any) -> bytes:
    return (json.dumps(data, indent=1, sort_keys=True, default=str) + "\n").encode("utf-8")


def _replace_atomically(path: Path, content: bytes) -> None:
    """``content`` at ``path``, written beside it first: a reader never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(content)
        os.chmod(tmp, 0o666 & ~UMASK)  # mkstemp makes it 0600: a teammate or a web server reads what a run writes
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_json(path: Path, data: Any) -> None:
    """Write ``data`` to ``path`` atomically."""
    _replace_atomically(path, _json_bytes(data))


def write_text(path: Path, text: str) -> None:
    """A rendered output of a run (matrix.md, report.html, sweep.md, history.md, bisect.md, repro.md, a cell's
    log sent back) written atomically: a reader, or a run cut in the middle, never leaves half of one."""
    _replace_atomically(path, text.encode("utf-8"))


def cell_path(run_dir: Path, env: str, scenario: str) -> Path:
    return run_dir / env.replace("/", "_") / (scenario.replace("/", "__") + ".json")


def log_path(run_dir: Path, env: str, scenario: str) -> Path:
    """Where a cell's full stderr goes."""
    return run_dir / "logs" / env / (scenario.replace("/", "__") + ".log")


def write_record(run_dir: Path, record: CellRecord) -> Path:
    """The cell's record, written where it is kept (gzipped when it is kept gzipped), as it is: the
    runner's records are typed (mypy), and a malformed one is still written, never lost with the run
    it would stop: reading it names its first problem in one line (``read_records``), and the other
    cells go on. Not validated here: that would import pydantic into every run for a check the
    reader makes anyway."""
    path = kept_path(cell_path(run_dir, record["env"]["name"], record["scenario"]["name"]))
    if path.name.endswith(".gz"):
        write_gzipped(path, record)
    else:
        write_json(path, record)
    return path


def kept_path(path: Path) -> Path:
    """Where a cell's record at ``path`` is kept: its gzipped twin where there is one (a committed
    reference's), else ``path``."""
    packed = path.with_name(path.name + ".gz")
    return packed if packed.is_file() else path


def write_gzipped(path: Path, data: Any) -> None:
    """``data`` as gzipped JSON, atomically and byte-for-byte reproducible (no timestamp inside)."""
    packed = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=packed, mtime=0, compresslevel=9) as zipped:
        zipped.write(_json_bytes(data))
    _replace_atomically(path, packed.getvalue())


def record_paths(run_dir: Path) -> list[Path]:
    """The run's record files, plain or gzipped (the run folder's */*.json and */*.json.gz)."""
    return sorted([*run_dir.glob("*/*.json"), *run_dir.glob("*/*.json.gz")])


def load_record(path: Path) -> Any:
    """A record file's JSON, gzipped or not."""
    raw = path.read_bytes()
    return json.loads(gzip.decompress(raw) if path.name.endswith(".gz") else raw)


MANIFEST = "manifest.json"  # a run's plan and request (resume reads it back)
SWEEP = "sweep.json"  # a sweep's request, then its summary


def write_manifest(run_dir: Path, manifest: Manifest) -> Path:
    path = run_dir / MANIFEST
    write_json(path, {"schema_version": SCHEMA_VERSION, **manifest})
    return path


def read_manifest(run_dir: Path) -> Manifest:
    """A run's manifest as written; OSError or ValueError (a JSON error, or no JSON object) where it cannot be read."""
    found = json.loads((run_dir / MANIFEST).read_text(encoding="utf-8"))
    if not isinstance(found, dict):
        raise ValueError(f"{run_dir / MANIFEST} holds no JSON object")
    return cast(Manifest, found)


def read_sweep(run_dir: Path) -> SweepSummary:
    """A sweep's sweep.json (its request, then its summary); OSError or ValueError where it cannot be read."""
    found = json.loads((run_dir / SWEEP).read_text(encoding="utf-8"))
    if not isinstance(found, dict):
        raise ValueError(f"{run_dir / SWEEP} holds no JSON object")
    return cast(SweepSummary, found)


def read_records(run_dir: Path) -> tuple[list[CellRecord], list[tuple[Path, str]]]:
    """Every cell record under ``run_dir``, upgraded to today's schema and checked against the
    model, and the files that could not be read (with why, in one line). Reading never writes."""
    records: list[CellRecord] = []
    broken: list[tuple[Path, str]] = []
    for path in record_paths(run_dir):
        try:
            data = load_record(path)
            if not isinstance(data, dict) or "scenario" not in data:
                raise ValueError("not a cell record")
            records.append(parse(upgraded(data)))
        except (OSError, EOFError, ValueError) as exc:  # a truncated gzip ends in EOFError; pydantic's is a ValueError
            broken.append((path, problem(exc)))
    return records, broken
