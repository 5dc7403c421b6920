"""`nox -s matrix` end to end on this machine: the cpu variant (no GPU here), every default env."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from helpers import ROOT

ENVS = ["tf1.8", "tf2.7", "tf-current", "torch", "jax", "cupy"]


def _matrix_command(results: Path) -> list[str]:
    args = ["--results", str(results)]  # no --variant: without a GPU the tool must pick cpu itself
    if os.environ.get("HARNESS_WHEELHOUSE"):
        args += ["--wheelhouse", os.environ["HARNESS_WHEELHOUSE"]]
    nox = shutil.which("nox")
    if nox:  # the very command users run
        return [nox, "-s", "matrix", "--", *args]
    return [sys.executable, "-m", "harness", "matrix", *args]


def test_matrix_runs_every_env_and_writes_the_matrix(docker_client, cpu_image, tmp_path: Path) -> None:
    for env in ENVS[:-1]:
        cpu_image(env)  # built (or confirmed) with the test wheelhouse; CuPy's is not made without a GPU
    result = subprocess.run(_matrix_command(tmp_path), cwd=ROOT, capture_output=True, text=True, timeout=2400,
                            env=dict(os.environ, NO_COLOR="1"))
    said = result.stdout + result.stderr  # nox passes the session's stderr through its stdout
    assert result.returncode == 0, said[-3000:]
    assert "variant: cpu" in said and "measures host memory (RSS) only" in said
    # what the run does here and why comes first, before any environment is made
    assert said.index("variant: cpu") < said.index("backend: ") and "each environment is made or found first" in said
    (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    matrix = json.loads((run_dir / "matrix.json").read_text())
    assert sorted(matrix["environments"]) == sorted(ENVS)
    assert "| scenario | " in (run_dir / "matrix.md").read_text()
    manifest = json.loads((run_dir / "manifest.json").read_text())
    statuses = {}
    for env, name in manifest["planned"]:
        cell = matrix["cells"][name][env]
        statuses[f"{name} @ {env}"] = cell["status"]
        assert cell["status"] != "missing"
    broken = {k: v for k, v in statuses.items() if v not in ("ok", "unsupported")}
    assert not broken, broken
    # every env ran its own framework, and cells measured real memory; CuPy has no CPU build: not made, unsupported
    for env in ENVS[:-1]:
        assert any(matrix["cells"][n].get(env, {}).get("framework") for n in matrix["scenarios"])
    cupy = [cells["cupy"] for cells in matrix["cells"].values() if "cupy" in cells]
    assert cupy and all(c["status"] == "unsupported" and "this host has none: not made here" in c["error"] for c in cupy)
    tf1 = matrix["cells"]["tf1/session_close"]["tf1.8"]
    assert tf1["framework"]["tensorflow"] == "1.8.0" and tf1["python"].startswith("2.7")
    assert tf1["steps"][0]["meter"] == "rss" and tf1["steps"][0]["grown"] > 128 * 1024 * 1024
