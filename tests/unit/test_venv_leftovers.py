"""A virtualenv build stopped by a kill leaves `.NAME.HASH-PID` (914 MiB for torch): the next build of that
environment removes it, and never the build a live process is making, nor the one its link points at. Files a
run writes are readable by others, as the umask says (a teammate, a web server)."""
from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

from harness.environments import venv_leftovers
from harness.store import results


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid  # reaped: no process has it now


def test_a_stopped_builds_folder_is_removed_and_the_live_ones_are_kept(tmp_path: Path) -> None:
    dead = _dead_pid()
    current = tmp_path / ".torch-cpu.aaaa-1"  # the build swapped in: its process is gone, the link points at it
    current.mkdir()
    (tmp_path / "torch-cpu").symlink_to(current.name)
    stopped = tmp_path / f".torch-cpu.bbbb-{dead}"
    stopped.mkdir()
    (stopped / "lib").mkdir()
    building = tmp_path / f".torch-cpu.cccc-{os.getpid()}"  # a live process is making this one
    building.mkdir()
    other = tmp_path / f".jax-cpu.dddd-{dead}"  # another environment's: its own lock, its own next build
    other.mkdir()
    removed = venv_leftovers.remove(tmp_path, tmp_path / "torch-cpu")
    assert removed == [stopped] and not stopped.exists()
    assert current.exists() and building.exists() and other.exists()


def test_what_a_run_writes_follows_the_umask(tmp_path: Path) -> None:
    results.write_text(tmp_path / "matrix.md", "| cell |\n")
    mode = stat.S_IMODE((tmp_path / "matrix.md").stat().st_mode)
    assert mode == 0o666 & ~results.UMASK, oct(mode)  # mkstemp alone gives 0600 whatever the umask
