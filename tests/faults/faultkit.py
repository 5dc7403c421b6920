"""What every fault case shares: its outcome row and the real CLI, run as a user runs it."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Outcome:
    exit: str
    status: str
    lost: str  # "no", or what was lost
    ok: bool
    detail: str


def cli(*args: str, timeout: float = 300, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(env or os.environ, NO_COLOR="1", COLUMNS="200", PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "harness", *args], capture_output=True, text=True, cwd=ROOT,
                          env=env, timeout=timeout)


def error_line(result: subprocess.CompletedProcess[str]) -> str:
    lines = [x for x in result.stderr.splitlines() if x.startswith("gpu-cleanup-matrix: error:")]
    return lines[0][len("gpu-cleanup-matrix: error: "):] if lines else ""


def records(run_root: Path) -> dict[str, dict]:
    return {p.parent.name + "/" + p.stem: json.loads(p.read_text()) for p in run_root.glob("*/*/*.json")
            if p.parent.name != "logs"}
