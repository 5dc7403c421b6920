"""A results folder on a read-only, too small or filling filesystem: one line naming the folder and
the cause, never a traceback; a script printing without end never costs the cell its record.
Real filesystems: small tmpfs mounts (root only; skipped where this machine cannot mount)."""
from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import harness_cli

from harness.measurement.backends.capped_log import LOG_HEAD_BYTES, LOG_TAIL_BYTES

MiB = 1024 * 1024


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[callable]:
    mounted: list[Path] = []

    def mount(size_mib: int, read_only: bool = False) -> Path:
        where = tmp_path / f"fs{len(mounted)}"
        where.mkdir()
        options = f"size={size_mib}m" + (",ro" if read_only else "")
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)], capture_output=True, text=True)
        if done.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip()}): needs root")
        mounted.append(where)
        return where

    yield mount
    for where in mounted:
        subprocess.run(["umount", "-l", str(where)], check=False)


def _repro(script: Path, results: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return harness_cli("repro", str(script), "--interpreter", sys.executable, "--results", str(results),
                       "--timeout", "120", *extra, timeout=300)


def _one_line(result: subprocess.CompletedProcess[str], *words: str) -> None:
    assert result.returncode == 5, result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    (line,) = [x for x in result.stderr.splitlines() if x.startswith("gpu-cleanup-matrix: error:")]
    for word in words:
        assert word in line, line


def test_a_read_only_results_folder_is_one_line_before_anything_runs(tmpfs, tmp_path: Path) -> None:
    script = tmp_path / "s.py"
    script.write_text("print('ran')\n")
    results = tmpfs(8, read_only=True)
    _one_line(_repro(script, results), f"cannot write results to {results}", "Read-only file system",
              "writable filesystem")


def test_too_little_space_is_one_line_before_anything_runs(tmpfs, tmp_path: Path) -> None:
    script = tmp_path / "s.py"
    script.write_text("print('ran')\n")
    results = tmpfs(16)
    _one_line(_repro(script, results / "results"), "only", "free there", "--results a folder on another disk")


def test_a_disk_filled_during_the_run_is_one_line(tmpfs, tmp_path: Path) -> None:
    results = tmpfs(80)
    script = tmp_path / "fill.py"  # the script itself fills the results disk, as a checkpointing job would
    script.write_text(f"with open({str(results / 'ballast')!r}, 'wb') as f:\n"
                      "    try:\n        while True:\n            f.write(bytes(1 << 20))\n"
                      "    except OSError:\n        pass\n")
    _one_line(_repro(script, results), f"cannot write results to {results}", "No space left on device", "free some space")


def test_endless_output_is_capped_and_the_record_written(tmpfs, tmp_path: Path) -> None:
    results = tmpfs(80)
    script = tmp_path / "chatty.py"
    script.write_text("import sys\nline = 'x' * 1023 + '\\n'\nfor _ in range(200 * 1024):\n    sys.stdout.write(line)\n")
    result = _repro(script, results)
    assert result.returncode == 0, result.stderr[-2000:]
    (record_path,) = results.glob("*/*/repro__chatty.json")
    assert json.loads(record_path.read_text())["status"] == "ok"
    (log,) = results.glob("*/logs/*/repro__chatty.log")
    assert log.stat().st_size < LOG_HEAD_BYTES + LOG_TAIL_BYTES + 4096  # 200 MiB printed
    assert b"bytes cut by the harness" in log.read_bytes()
