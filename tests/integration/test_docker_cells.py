"""Cells through the docker backend on a real engine: real readings, timeouts, nothing left."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import SCENARIOS

from harness.definitions import config
from harness.judgement import tolerances
from harness.measurement import scenario
from harness.measurement.backends.docker import DockerBackend
from harness.measurement.backends.owned_containers import LABEL_RUN
from harness.measurement.nvml import Nvml
from harness.measurement.runner import CellOptions, run_cell

MiB = 1024 * 1024


def _run(client: Any, image: str, name: str, tmp_path: Path, **kwargs: Any) -> dict[str, Any]:
    spec = scenario.load(SCENARIOS / f"{name}.py")
    options = CellOptions(run_id="it-" + tmp_path.name[-12:], run_dir=tmp_path, env_name="it", env_facts={},
                          params=kwargs.pop("params", {}), timeout=kwargs.pop("timeout", None), cpu_only=True,
                          setenv=kwargs.pop("setenv", {}))
    return run_cell(DockerBackend(client=client, image=image), spec, options, Nvml.open())


@pytest.mark.parametrize("env_name", ["tf1.8", "torch"])  # Python 2.7 and 3.11 inside
def test_container_rss_rise_and_fall_and_clean_exit(env_name: str, cpu_image, docker_client, tmp_path: Path) -> None:
    record = _run(docker_client, cpu_image(env_name), "alloc_free", tmp_path)
    assert record["status"] == "ok", (record["error"], record["stderr_tail"])
    assert record["exit_code"] == 0
    assert record["env"]["backend"] == "docker" and record["env"]["gpu_request"] == "none"
    rss = {cp["label"]: cp["readings"]["rss"] for cp in record["checkpoints"]}
    # the agent's reading before any scenario code: in the container, before the scenario imports
    assert record["pre_gpu"]["label"] == "pre_gpu" and 0 < record["pre_gpu"]["readings"]["rss"] <= rss["ready"]
    tol = tolerances.tolerance(512 * MiB)
    assert abs(rss["peak"] - rss["ready"] - 512 * MiB) <= tol
    assert abs(rss["peak"] - rss["after_del"] - 512 * MiB) <= tol
    assert record["verdicts"]["steps"][0]["verdict"] == "released"
    assert record["after_exit"]["processes_left"] == []
    assert record["facts"]["python"].startswith("2.7" if env_name == "tf1.8" else "3.11")


def test_hanging_container_is_killed_at_its_timeout(cpu_image, docker_client, tmp_path: Path) -> None:
    record = _run(docker_client, cpu_image("torch"), "hangs", tmp_path, timeout=8, params={"pidfile": "/tmp/child.pid"})
    assert record["status"] == "timeout", (record["error"], record["stderr_tail"])
    assert [cp["label"] for cp in record["checkpoints"]] == ["ready"]
    assert record["after_exit"]["processes_left"] == []
    assert not docker_client.containers.list(all=True, filters={"label": f"{LABEL_RUN}={record['run_id']}"})


def test_crash_and_error_in_a_container_are_results(cpu_image, docker_client, tmp_path: Path) -> None:
    crashed = _run(docker_client, cpu_image("torch"), "hard_exit", tmp_path)
    assert crashed["status"] == "crashed" and crashed["exit_code"] == 3
    failed = _run(docker_client, cpu_image("torch"), "raises", tmp_path)
    assert failed["status"] == "error" and "scenario bug on purpose" in failed["error"]["traceback"]


def test_a_missing_image_is_a_failed_cell_not_a_crash(docker_client, tmp_path: Path) -> None:
    record = _run(docker_client, f"{config.image_prefix()}/no-such-env:cpu", "alloc_free", tmp_path)
    assert record["status"] == "harness-error"  # the harness failed the cell, not the scenario
    assert record["error"]["type"] == "StartFailed"


def test_setenv_reaches_the_script_in_a_container(cpu_image, docker_client, tmp_path: Path) -> None:
    record = _run(docker_client, cpu_image("torch"), "alloc_free", tmp_path, params={"mib": 16},
                  setenv={"PYTORCH_NO_CUDA_MEMORY_CACHING": "1"})
    assert record["status"] == "ok", (record["error"], record["stderr_tail"])
    assert record["env_seen"]["PYTORCH_NO_CUDA_MEMORY_CACHING"] == "1"  # reported from inside the container
