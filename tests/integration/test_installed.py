"""The tool as a user installs it: the wheel built from this checkout, in a fresh virtualenv, run
from a folder outside the checkout. Everything the checkout does works there: the definitions,
claims, Dockerfiles and scenarios ship in the wheel, a user's environments.toml in the working
folder is found, and the commands are named for the project."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT

# One small environment of the user's own: JAX's CPU wheels from PyPI, in a virtualenv.
ENVIRONMENTS = '''[environments.mini-jax]
family = ["jax"]
dockerfile = "images/jax"
python_version = "{python}"
[environments.mini-jax.variants.cpu]
base = "python:{python}-slim-bookworm"
packages = ["jax==0.4.38", "jaxlib==0.4.38"]
'''
BUG = '''import gc
import jax.numpy as jnp

x = jnp.ones((4096, 4096))
del x
gc.collect()
'''


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The venv's bin folder, with the wheel of this checkout installed (its dependencies from the index)."""
    where = tmp_path_factory.mktemp("installed")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(where / "dist"), str(ROOT)],
                   check=True, capture_output=True, timeout=300)
    (wheel,) = (where / "dist").glob("gpu_cleanup_matrix-*.whl")
    subprocess.run([sys.executable, "-m", "venv", str(where / "venv")], check=True, timeout=120)
    bin_dir = where / "venv" / "bin"
    done = subprocess.run([str(bin_dir / "pip"), "install", "-q", str(wheel)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return bin_dir


def run(bin_dir: Path, cwd: Path, *args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(NO_COLOR="1", COLUMNS="200", PATH=f"{bin_dir}:{env.get('PATH', '')}",
               XDG_CACHE_HOME=str(cwd.parent / "cache"))  # a new user's cache: its virtualenvs are made here, as theirs
    return subprocess.run(list(args), cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)


def test_the_installed_tool_does_what_the_checkout_does(installed: Path, tmp_path: Path) -> None:
    work = tmp_path / "work"  # outside the checkout: nothing of it on sys.path or in the working folder
    work.mkdir()
    assert not str(work).startswith(str(ROOT))
    for name in ("gpu-cleanup-matrix", "gcm", "harness"):
        shown = run(installed, work, name, "--version")
        assert shown.returncode == 0 and "gpu-cleanup-matrix" in shown.stdout
    module = run(installed, work, str(installed / "python"), "-m", "gpu_cleanup_matrix", "--help")
    assert module.returncode == 0 and module.stdout.startswith("usage: gpu-cleanup-matrix")

    doctor = run(installed, work, "gpu-cleanup-matrix", "doctor")
    assert "cannot read" not in doctor.stderr + doctor.stdout and "image gpu-cleanup-matrix" in doctor.stdout + doctor.stderr
    scenarios = run(installed, work, "gcm", "scenarios")
    assert scenarios.returncode == 0 and "`torch/del_gc_empty_cache`" in scenarios.stdout

    python = f"{sys.version_info[0]}.{sys.version_info[1]}"
    (work / "environments.toml").write_text(ENVIRONMENTS.format(python=python))
    matrix = run(installed, work, "gpu-cleanup-matrix", "matrix", "--backend", "venv", "--scenario", "jax/preallocation",
                 "--variant", "cpu")
    assert matrix.returncode == 0, matrix.stderr[-3000:]
    assert "found in the working folder" in matrix.stderr
    (run_dir,) = [p for p in (work / "results").iterdir() if p.is_dir()]
    cells = json.loads((run_dir / "matrix.json").read_text())["cells"]
    assert cells["jax/preallocation"]["mini-jax"]["status"] == "ok"
    # the seeds' claims were read from the wheel's copy: the matrix speaks to them
    assert json.loads((run_dir / "matrix.json").read_text())["claims"]

    (work / "bug.py").write_text(BUG)
    repro = run(installed, work, "gpu-cleanup-matrix", "repro", "bug.py", "--backend", "venv")
    assert repro.returncode == 0, repro.stderr[-3000:]
    assert "### Host memory of `bug.py`" in repro.stdout and "**mini-jax**" in repro.stdout

    report = run(installed, work, "gpu-cleanup-matrix", "report", str(run_dir))
    assert report.returncode == 0, report.stderr[-2000:]
    assert (run_dir / "report.html").stat().st_size > 10_000


def test_the_readme_examples_run_after_an_install(installed: Path, tmp_path: Path) -> None:
    """The README's `gcm repro "$(gcm examples holders_cpu)"` after an install, on a machine without a
    GPU: the example's path comes from the installed package (a `python -m harness.examples` there
    ran the user's own Python, which has no harness), and repro names the three holders of host memory."""
    work = tmp_path / "examples"
    work.mkdir()
    listed = run(installed, work, "gcm", "examples")
    assert listed.returncode == 0 and "holders_cpu: " in listed.stdout and "holders_torch: " in listed.stdout
    path = run(installed, work, "gcm", "examples", "holders_cpu").stdout.strip()
    assert Path(path).is_file() and path.startswith(str(installed.parent)), path
    repro = run(installed, work, "gcm", "repro", path, "--env", "torch", "--backend", "venv", "--variant", "cpu", timeout=1500)
    assert repro.returncode == 0, repro.stderr[-3000:]
    said = repro.stdout
    # the virtualenv's install said what it fetched (or unpacked from a wheelhouse), and which torch build it took
    assert re.search(r"torch: (fetching|unpacking) torch 2\.13\.0\S* \(\d", repro.stderr), repro.stderr[-3000:]
    assert re.search(r"torch: installed torch 2\.13\.0\S*, the (CPU|CUDA [\d.]+) build", repro.stderr), repro.stderr[-3000:]
    assert "What holds the host memory at `holders_cpu.py:32: gc.collect()`:" in said, said[-3000:]
    for holder in ("the traceback in `err` keeps the frame of `train()`", "`opt` (Adam) holds its state",
                   "`history` (list of 3) gains a tensor per iteration with its autograd graph at line 17"):
        assert holder in said, said[-3000:]
    missing = run(installed, work, "gcm", "examples", "nope")
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "holders_cpu" in missing.stderr
