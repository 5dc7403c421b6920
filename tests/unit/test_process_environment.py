"""A cell's variables on the process backend: the host's, the user's --setenv, and a virtualenv's own
library folders (its CUDA wheels) on LD_LIBRARY_PATH, the way an image's ENV puts its own."""
from __future__ import annotations

import sys

import pytest

from harness.measurement.backends.process import ProcessBackend


@pytest.fixture(autouse=True)
def host_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LD_LIBRARY_PATH", "/usr/local/nvidia/lib64")  # where a GPU host keeps its driver


def test_a_virtualenvs_libraries_come_first_and_the_hosts_driver_stays_reachable() -> None:
    venv = ProcessBackend(python=sys.executable, name="venv", library_path="/v/nvidia/cublas/lib:/v/nvidia/cudnn/lib")
    env = venv.environment({"TF_FORCE_GPU_ALLOW_GROWTH": "true"})
    assert env["LD_LIBRARY_PATH"] == "/v/nvidia/cublas/lib:/v/nvidia/cudnn/lib:/usr/local/nvidia/lib64"
    assert env["TF_FORCE_GPU_ALLOW_GROWTH"] == "true"


def test_a_path_the_user_gave_comes_before_the_virtualenvs_own() -> None:
    venv = ProcessBackend(python=sys.executable, name="venv", library_path="/v/nvidia/cublas/lib")
    assert venv.environment({"LD_LIBRARY_PATH": "/root/cuda11/lib"})["LD_LIBRARY_PATH"] == \
        "/root/cuda11/lib:/v/nvidia/cublas/lib"


def test_without_libraries_of_its_own_a_cell_sees_what_a_bare_run_sees() -> None:
    plain = ProcessBackend(python=sys.executable)
    assert plain.environment({})["LD_LIBRARY_PATH"] == "/usr/local/nvidia/lib64"
    assert plain.environment({"LD_LIBRARY_PATH": "/mine"})["LD_LIBRARY_PATH"] == "/mine"
    assert "base" not in plain.describe()


def test_a_virtualenv_says_it_was_made_from_no_base_image() -> None:
    facts = ProcessBackend(python=sys.executable, name="venv", library_path="/v/nvidia/cublas/lib").describe()
    assert facts["base"] is None and facts["library_path"] == "/v/nvidia/cublas/lib" and facts["backend"] == "venv"


def test_a_made_virtualenv_runs_its_own_packages_not_the_hosts_pythonpath(monkeypatch: pytest.MonkeyPatch) -> None:
    """A shell with PYTHONPATH at another torch (a newer one, for the host's Python) ran pytorch#24200's script in
    the torch==1.0.0 virtualenv with that torch: "SyntaxError: invalid syntax" from its __init__.py, reported as
    the release's import failing. A virtualenv made from pins gets neither PYTHONPATH nor PYTHONHOME; a Python
    given as it is (--interpreter) sees what a bare run of it sees, and --setenv still passes one on."""
    import subprocess

    monkeypatch.setenv("PYTHONPATH", "/elsewhere/site")
    monkeypatch.setenv("PYTHONHOME", "/elsewhere")
    made = ProcessBackend(python=sys.executable, name="venv").environment({})
    assert "PYTHONPATH" not in made and "PYTHONHOME" not in made
    seen = subprocess.run([sys.executable, "-c", "import os; print(os.environ.get('PYTHONPATH'))"], env=made,
                          capture_output=True, text=True, timeout=60).stdout.strip()
    assert seen == "None"
    assert ProcessBackend(python=sys.executable).environment({})["PYTHONPATH"] == "/elsewhere/site"
    asked = ProcessBackend(python=sys.executable, name="venv").environment({"PYTHONPATH": "/mine"})
    assert asked["PYTHONPATH"] == "/mine"
