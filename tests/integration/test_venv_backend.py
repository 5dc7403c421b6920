"""Without a Docker engine, `nox -s matrix` runs the envs whose Python exists in virtualenvs."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT

from harness.environments import venvs

ENVS = ["tf1.8", "tf2.7", "tf-current", "torch"]
SCENARIOS = ["tf1/session_close", "tf2/model_del", "torch/del_gc_empty_cache"]


@pytest.fixture(scope="module")
def venv_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("venvs")


@pytest.fixture(autouse=True)
def only_pythons_on_path(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """The Pythons this test counts on are those on PATH: interpreters pyenv or uv keep inactive (which
    the tool finds, test_first_contact.py) would make it build TF 1.8 and TF 2.7 virtualenvs here."""
    empty = tmp_path_factory.mktemp("no-inactive-pythons")
    monkeypatch.setenv("PYENV_ROOT", str(empty))
    monkeypatch.setenv("UV_PYTHON_INSTALL_DIR", str(empty))


def _matrix(results: Path, venv_dir: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    args = ["--results", str(results), "--venv-dir", str(venv_dir), *extra]
    for env in ENVS:
        args += ["--env", env]
    for name in SCENARIOS:
        args += ["--scenario", name]
    nox = shutil.which("nox")
    argv = [nox, "-s", "matrix", "--", *args] if nox else [sys.executable, "-m", "harness", "matrix", *args]
    # A socket nobody serves: no Docker engine answers for this test.
    env = dict(os.environ, NO_COLOR="1", DOCKER_HOST="unix:///tmp/harness-test-nobody.sock")
    return subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=3000, env=env)


def test_without_docker_the_matrix_runs_in_virtualenvs(venv_dir: Path, tmp_path: Path) -> None:
    result = _matrix(tmp_path, venv_dir)
    said = result.stdout + result.stderr
    assert result.returncode == 0, said[-3000:]
    assert "backend: venv (no Docker engine answers at unix:///tmp/harness-test-nobody.sock" in said
    (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    matrix = json.loads((run_dir / "matrix.json").read_text())
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["backend"] == "venv"
    for env in ENVS:
        python_there = venvs.find_python({"tf1.8": "2.7", "tf2.7": "3.9"}.get(env, "3.11")) is not None
        cells = [row[env] for row in matrix["cells"].values() if env in row]
        assert cells, env
        if python_there:
            assert {c["status"] for c in cells} == {"ok"}, (env, cells)
        else:  # e.g. CI's machine has no working python2.7 / python3.9
            assert {c["status"] for c in cells} == {"skipped"}
            assert all("not found: install it, or run with Docker" in c["error"] for c in cells)
            assert env in manifest["skipped"]
    torch = matrix["cells"]["torch/del_gc_empty_cache"]["torch"]
    assert torch["framework"]["torch"].startswith("2.13.0") and torch["steps"][0]["meter"] == "rss"
    record = json.loads((run_dir / "torch" / "torch__del_gc_empty_cache.json").read_text())
    assert record["env"]["backend"] == "venv" and record["env"]["interpreter"].startswith(str(venv_dir))


def test_a_second_run_reuses_the_virtualenvs(venv_dir: Path, tmp_path: Path) -> None:
    result = _matrix(tmp_path, venv_dir, "--setenv", "TF_CPP_MIN_LOG_LEVEL=2")
    said = result.stdout + result.stderr
    assert result.returncode == 0, said[-3000:]
    assert "tf-current: virtualenv reused" in said and "torch: virtualenv reused" in said
    assert "making a virtualenv" not in said
    (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    record = json.loads((run_dir / "torch" / "torch__del_gc_empty_cache.json").read_text())
    assert record["setenv"] == {"TF_CPP_MIN_LOG_LEVEL": "2"}
    assert record["env_seen"]["TF_CPP_MIN_LOG_LEVEL"] == "2"  # --setenv reached the virtualenv's process


def test_a_pin_becomes_a_virtualenv_too(venv_dir: Path, tmp_path: Path) -> None:
    argv = [sys.executable, "-m", "harness", "repro", str(ROOT / "tests" / "repro" / "six_planted.py"), "--with", "six==1.16.0",
            "--backend", "venv", "--venv-dir", str(venv_dir), "--results", str(tmp_path), "--setenv", "CUDA_CACHE_DISABLE=1"]
    result = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=900, env=dict(os.environ, NO_COLOR="1"))
    (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    record = json.loads((run_dir / "six==1.16.0" / "repro__six_planted.json").read_text())
    if venvs.find_python("3.11") is None:
        assert record["status"] == "skipped" and "python3.11 not found" in record["error"]["message"]
        return
    assert result.returncode == 0, result.stderr[-3000:]
    assert record["status"] == "ok" and record["env"]["backend"] == "venv"
    assert record["env"]["interpreter"].startswith(str(venv_dir / "six==1.16.0-cpu"))
    assert "six 1.16.0 kept 3" in record["stderr_tail"]  # the pinned release ran
    assert record["env_seen"]["CUDA_CACHE_DISABLE"] == "1"
