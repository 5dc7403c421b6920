"""Helpers shared by the tests (plain functions; fixtures live in conftest.py)."""
from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "tests" / "scenarios"


def harness_cli(*args: str, cwd: Path | None = None, timeout: float = 120,
                env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m harness ARGS`` in a fresh interpreter, as a user would run it (``env``: added variables)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1", COLUMNS="200", **(env or {}))
    return subprocess.run([sys.executable, "-m", "harness", *args], capture_output=True, text=True,
                          cwd=cwd or ROOT, env=env, timeout=timeout)


def processes_with(marker: str) -> list[int]:
    """PIDs whose command line contains ``marker`` (to prove nothing is left running)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if marker in cmdline:
                found.append(int(entry))
    return found


def old_pythons() -> list[str]:
    """Python 2.7 / 3.5 / 3.6 interpreters that really run here (pyenv installs included)."""
    found = []
    for name in ("python2.7", "python3.5", "python3.6"):
        candidates = glob.glob(os.path.expanduser(f"~/.pyenv/versions/{name[6:]}*/bin/{name}"))
        path = candidates[0] if candidates else shutil.which(name)
        if path and subprocess.run([path, "-c", "pass"], capture_output=True).returncode == 0:
            found.append(path)
    return found
