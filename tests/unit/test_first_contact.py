"""What a new user meets first: filters that leave nothing to run are refused up front in one line,
and nothing is said to have been asked for that was not."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import harness_cli

from harness.measurement import gpu_access


def test_filters_with_no_cell_in_common_are_refused_before_anything_is_built(tmp_path: Path) -> None:
    result = harness_cli("matrix", "--env", "torch", "--scenario", "tf2/*", "--results", str(tmp_path / "r"))
    assert result.returncode == 2, result.stderr
    (line,) = [x for x in result.stderr.splitlines() if "error:" in x]
    assert "no cell to run: the environments asked for (torch) run none of the" in line
    assert "those run in tf2.7, tf-current" in line
    assert not (tmp_path / "r").exists() or not any((tmp_path / "r").iterdir())  # no empty run, no malformed matrix.md


def test_no_gpu_for_containers_is_never_said_to_be_asked_for_when_nothing_was() -> None:
    assert gpu_access.for_run({}, "cpu", False, None).reason == "no NVIDIA GPU answers NVML here"
    assert gpu_access.for_run({}, "cpu", True, None).reason == "the cpu variant runs without a GPU"
    assert gpu_access.for_run({}, "cpu", False, "none").reason == "asked for"


def test_two_interpreters_in_one_run_keep_a_column_each() -> None:
    from harness.definitions import config

    envs = config.distinct_names([config.adhoc_interpreter("/venvs/jax/bin/python", []),
                                  config.adhoc_interpreter("/venvs/torch/bin/python", []),
                                  config.adhoc_interpreter("/usr/bin/python3", [])])
    assert [e.name for e in envs] == ["host-jax-python", "host-torch-python", "host-python3"]
    assert [e.interpreter for e in envs] == ["/venvs/jax/bin/python", "/venvs/torch/bin/python", "/usr/bin/python3"]
    same = config.distinct_names([config.adhoc_interpreter("/a/bin/python", []), config.adhoc_interpreter("/a/bin/python", [])])
    assert len({e.name for e in same}) == 2


def test_the_terminal_and_matrix_md_count_the_undecided_claims_alike() -> None:
    """Without a GPU the terminal said '48 ... not decided' (claim x environment) where matrix.md said
    'the 30 claims': both count claims now."""
    import json
    import re

    from harness.definitions.config import REPO
    from harness.reporting import glance, matrix_md, render

    # a run without a GPU whose claims were judged (matrix/reference/cpu-issue-reports/runs/20261127T045147Z-143257)
    cpu = json.loads((REPO / "tests" / "data" / "records" / "cpu" / "matrix.json").read_text())
    assert cpu.get("machine") == glance.NO_GPU and any(c["results"] for c in cpu["claims"])
    said = re.search(r"so the (\d+) claims about GPU memory", matrix_md.to_markdown(cpu))
    assert said is not None
    assert f"so the {said.group(1)} claims about GPU memory are not decided" in render.matrix_summary(cpu)


def test_multiprocessings_resource_tracker_is_not_left_running(tmp_path: Path) -> None:
    """A spawn-context lock starts multiprocessing's resource tracker, which ends by itself once the
    script has: it is not a process the script left running, nor one the harness had to kill."""
    import json
    import sys

    script = tmp_path / "tracked.py"
    script.write_text("import multiprocessing as mp\nlock = mp.get_context('spawn').Lock()\nprint('locked')\n")
    result = harness_cli("repro", "--interpreter", sys.executable, "--results", str(tmp_path / "r"), str(script),
                         cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    (path,) = (tmp_path / "r").glob("*/*/repro__tracked.json")
    record = json.loads(path.read_text())
    assert record["killed"] == [], record["killed"]
    assert "killed by the harness" not in result.stdout


def test_an_environment_that_cannot_run_the_script_is_said_never_dropped(tmp_path: Path) -> None:
    import sys

    from harness.definitions import config
    from harness.running import catalogue, repro

    script = tmp_path / "bug.py"
    script.write_text("import torch\n")
    item = repro.script_scenario(script)
    envs = config.load_environments()
    unfit = catalogue.unfit([envs["torch"], envs["tf2.7"]], [item])
    assert list(unfit) == ["tf2.7"] and "the script needs torch; tf2.7 has tf2" in unfit["tf2.7"]
    result = harness_cli("repro", "--interpreter", sys.executable, "--family", "jax", "--results", str(tmp_path / "r"),
                         str(script), cwd=tmp_path)
    assert result.returncode == 2, result.stderr[-1500:]
    assert "no environment asked for can run bug.py: does not fit: the script needs torch" in result.stderr


def test_matrix_md_columns_name_the_releases_and_the_hardware() -> None:
    import json

    from harness.definitions.config import REPO
    from harness.reporting import matrix_md

    matrix = json.loads((REPO / "tests" / "data" / "records" / "h200" / "matrix.json").read_text())  # h200-580.159.04's
    header = next(line for line in matrix_md.to_markdown(matrix).splitlines() if line.startswith("| scenario |"))
    assert header == "| scenario | host-python3<br>cupy 14.2.0, jax 0.11.2, torch 2.11.0+cu130 · H200 |"


def test_a_python_pyenv_or_uv_keeps_inactive_is_found(tmp_path, monkeypatch) -> None:
    """#47: Python 3.10 installed under pyenv but not active read "python3.10 not found" (its shim
    refuses to run). The interpreters pyenv and uv keep are looked up, newest patch first, and the one
    that really runs is used, for --with environments and for --interpreter python3.X alike."""
    import sys

    from harness.environments import venvs

    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    for root, folder in ((tmp_path / "pyenv" / "versions", f"{version}.1"), (tmp_path / "pyenv" / "versions", f"{version}.99"),
                         (tmp_path / "uv", f"cpython-{version}.50-linux-x86_64-gnu")):
        (root / folder / "bin").mkdir(parents=True)
        (root / folder / "bin" / f"python{version}").symlink_to(sys.executable)
    shim = tmp_path / "shims" / f"python{version}"  # a pyenv shim of an inactive version: names it, will not run it
    shim.parent.mkdir()
    shim.write_text("#!/bin/sh\nexit 127\n")
    shim.chmod(0o755)
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path / "pyenv"))
    monkeypatch.setenv("UV_PYTHON_INSTALL_DIR", str(tmp_path / "uv"))
    monkeypatch.setenv("PATH", str(shim.parent))
    venvs.interpreter_identity.cache_clear()
    found = venvs.installed_pythons(version)
    assert [p.split("/")[-3] for p in found] == [f"{version}.99", f"cpython-{version}.50-linux-x86_64-gnu", f"{version}.1"]
    assert venvs.find_python(version) == found[0]
    assert venvs.runnable(f"python{version}") == found[0]
    assert venvs.runnable("python9.9") == "python9.9"  # nothing to find: the name stays, its error says so


def test_an_environment_whose_framework_needs_a_gpu_is_not_made_on_a_host_without_one(tmp_path: Path) -> None:
    """CuPy has no CPU build: on a host without a GPU its environment was downloaded (130 MiB) and built only for
    every cell to say it needs one. Now that is said first and nothing is made; the cells are unsupported, with why."""
    from harness.measurement.nvml import Nvml

    if Nvml.open().available:
        pytest.skip("this host has a GPU: CuPy's environment is made and runs")
    done = harness_cli("matrix", "--env", "cupy", "--backend", "venv", "--results", str(tmp_path / "results"),
                       "--venv-dir", str(tmp_path / "venvs"))
    assert done.returncode == 0, done.stderr[-2000:]
    said = " ".join((done.stdout + done.stderr).split())
    assert "CuPy has no CPU build: it needs an NVIDIA GPU and driver, and this host has none: not made here" in said
    progress = " ".join(done.stderr.split())
    assert progress.index("plan: ") < progress.index("not made here") < progress.index("backend: ")  # before any making
    assert not (tmp_path / "venvs").exists() or not any((tmp_path / "venvs").iterdir())  # nothing fetched or built
    (run_dir,) = [p for p in (tmp_path / "results").iterdir() if p.is_dir()]
    matrix = json.loads((run_dir / "matrix.json").read_text())
    cells = [row["cupy"] for row in matrix["cells"].values()]
    assert len(cells) == 2 and all(c["status"] == "unsupported" and c["error"].startswith("CuPy has no CPU build")
                                   for c in cells), cells
