"""Time of the first and of a second `matrix` run on the venv backend (the second reuses the virtualenvs).

Usage: python tests/benchmarks/bench_venv_reuse.py [--env tf-current --env torch] [--scenario GLOB]
Prints both wall times. Runs with DOCKER_HOST pointing at a socket nobody serves, in a fresh
virtualenv folder, so the first run really makes them.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--env", action="append", default=None)
    parser.add_argument("--scenario", action="append", default=None)
    args = parser.parse_args()
    envs = args.env or ["tf-current", "torch"]
    scenarios = args.scenario or ["torch/del_gc_empty_cache", "tf2/model_del"]
    env = dict(os.environ, NO_COLOR="1", DOCKER_HOST="unix:///tmp/harness-bench-nobody.sock")
    with tempfile.TemporaryDirectory() as tmp:
        argv = [sys.executable, "-m", "harness", "matrix", "--venv-dir", f"{tmp}/venvs", "--results", f"{tmp}/results"]
        for name in envs:
            argv += ["--env", name]
        for name in scenarios:
            argv += ["--scenario", name]
        for label in ("first run (makes the virtualenvs)", "second run (reuses them)"):
            start = time.monotonic()
            result = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, env=env)
            wall = time.monotonic() - start
            if result.returncode != 0:
                print(result.stderr[-2000:])
                return 1
            print(f"{label}: {wall:.1f}s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
