"""The oldest release of each framework, end to end on a CPU host: the agent, the holder search and the meters
in a real image of that release, built by `--with` from PyPI (stand-in bases on CI: Python 3.7 from Ubuntu
18.04 for torch 1.0.1). TensorFlow 1.8 on Python 2.7 is test_holders_cpu's.

torch 1.0.1 has no ``is_meta`` and no storage ``nbytes()``, and its graphs show no saved tensors: the search
named nothing there until it read a tensor's bytes as that release can. jaxlib before 0.4.13 is gone from
PyPI, so JAX's oldest that installs is 0.4.13. CuPy 8 links CUDA's libraries and cannot even be imported
where there are none: its cells say that, not "CuPy is not correctly installed".
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from dockerkit import base_or_skip
from helpers import ROOT

SNIPPETS = ROOT / "tests" / "repro"  # torch_cpu_holders.py (test_holders_cpu's too), jax_0_4_holders.py


def _harness(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness", *args, "--backend", "docker", "--variant", "cpu"], cwd=ROOT,
                          capture_output=True, text=True, timeout=2400, env=dict(os.environ, NO_COLOR="1", COLUMNS="200"))


def _repro(tmp_path: Path, snippet: str, pin: str) -> tuple[str, dict[str, Any], str]:
    script = tmp_path / "oldest.py"
    script.write_text((SNIPPETS / snippet).read_text())
    results = tmp_path / "results"
    done = _harness("repro", str(script), "--with", pin, "--results", str(results))
    assert done.returncode == 0, done.stderr[-3000:]
    (run_dir,) = [p for p in results.iterdir() if p.is_dir()]
    record = json.loads((run_dir / pin / "repro__oldest.json").read_text())
    log = (run_dir / "logs" / pin / "repro__oldest.log").read_text(errors="replace")
    return (run_dir / "repro.md").read_text(), record, log


def test_torch_1_0_1_on_python_3_7_names_what_holds_its_cpu_tensors(docker_client: Any, tmp_path: Path) -> None:
    base_or_skip(docker_client, "python:3.7-slim-bullseye")
    text, record, log = _repro(tmp_path, "torch_cpu_holders.py", "torch==1.0.1")
    assert record["status"] == "ok" and record["facts"]["frameworks"]["torch"] == "1.0.1", record.get("error")
    assert record["agent"]["python"].startswith("3.7."), record["agent"]
    assert "What holds the host memory at `oldest.py:10: del model, loss`:" in text, text
    assert "- `opt` (Adam) holds its state and the parameters it was given, after the model is gone: 6 tensors" in text
    assert ("- `losses` (list of 4) gains a tensor per iteration with its autograd graph at line 9 (`losses.append("
            "model(torch.randn(256, 2048)).sum())`): 4 tensors (16 B, without what their graphs saved for backward: this "
            "release shows no graph's saved tensors)") in text, text
    assert "done 4 16 MiB of parameters" in log
    readings = [cp["readings"]["rss"] for cp in record["checkpoints"]]
    assert readings[-1] > readings[0] + (64 << 20)  # the meters read the process: the model and graphs it grew


def test_torch_1_0_1_names_a_cycle_through_autograd_that_gc_cannot_free(docker_client: Any, tmp_path: Path) -> None:
    """A Function that keeps its output on ctx: torch 1.0's tensor holds its graph node where gc cannot see, so
    `gc.collect()` leaves the output alive; the search names the node, the attribute, the line and the fix."""
    base_or_skip(docker_client, "python:3.7-slim-bullseye")
    text, record, log = _repro(tmp_path, "torch_cycle_ctx.py", "torch==1.0.1")
    assert record["status"] == "ok", record.get("error")
    assert "What holds the host memory at `oldest.py:21: gc.collect()`:" in text, text
    assert ("- a reference cycle that gc cannot free keeps 1 tensor (32.00 MiB) [float32 [2048, 4096]]: KeepBackward (the "
            "autograd node of `Keep`) keeps it as `ctx.out` (line 10: `ctx.out = out`), and this release's tensor holds "
            "its graph node where gc cannot see; keep it with `ctx.save_for_backward(...)` instead of `ctx.out`.") in text, text
    assert "done (2048, 4096)" in log


def test_jax_0_4_13_the_oldest_jaxlib_on_pypi_names_its_arrays(docker_client: Any, tmp_path: Path) -> None:
    base_or_skip(docker_client, "python:3.11-slim-bookworm")
    text, record, log = _repro(tmp_path, "jax_0_4_holders.py", "jax==0.4.13")
    assert record["status"] == "ok" and record["facts"]["frameworks"]["jax"] == "0.4.13", record.get("error")
    assert "What holds the host memory at `oldest.py:6: del x`:" in text, text
    assert "- `y` (ArrayImpl) keeps 1 array (64.00 MiB) [float32 [4096, 4096]]: `del y`" in text, text
    assert "- `cache` (dict of 1) keeps 1 array (64.00 MiB)" in text, text
    assert "done 0.4.13 2.0 1" in log
    older = _harness("repro", str(tmp_path / "oldest.py"), "--with", "jax==0.4.1", "--results", str(tmp_path / "r2"))
    assert "jax 0.4.1 is a source archive and needs jaxlib 0.4.1, which https://pypi.org/simple does not have " \
           "(its oldest there: 0.4.13)" in " ".join(older.stdout.split() + older.stderr.split())


def test_cupy_8_without_cuda_says_it_needs_cuda_and_a_gpu(docker_client: Any, tmp_path: Path) -> None:
    base_or_skip(docker_client, "python:3.9-slim-bullseye")
    results = tmp_path / "results"
    done = _harness("matrix", "--with", "cupy-cuda112==8.6.0", "--scenario", "cupy/pool_free_all_blocks",
                    "--results", str(results))
    assert done.returncode == 0, done.stderr[-3000:]  # unsupported is an answer, not a failure of the run
    (run_dir,) = [p for p in results.iterdir() if p.is_dir()]
    matrix = json.loads((run_dir / "matrix.json").read_text())
    cell = matrix["cells"]["cupy/pool_free_all_blocks"]["cupy-cuda112==8.6.0"]
    assert cell["status"] == "unsupported"
    # known before anything is fetched: CuPy has no CPU build, so nothing is made on a host without a GPU
    assert cell["error"].startswith("CuPy has no CPU build: it needs an NVIDIA GPU and driver, and this host has none: "
                                    "not made here"), cell["error"]
    assert "not made here" in done.stdout + done.stderr  # said as it was decided, in the run's progress
