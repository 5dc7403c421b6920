"""Environments from pins and bisect, end to end: real releases from PyPI, real image builds on
the engine (stand-in bases on CI), the cpu variant."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from helpers import ROOT

from harness.definitions import config

SNIPPETS = ROOT / "tests" / "repro"


def _harness(*args: str, timeout: float = 2400) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env=dict(os.environ, NO_COLOR="1", COLUMNS="200"))


def _run_dir(results: Path) -> Path:
    (run_dir,) = [p for p in results.iterdir() if p.is_dir()]
    return run_dir


def _record(run_dir: Path, env: str, stem: str) -> dict[str, Any]:
    return dict(json.loads((run_dir / env / f"repro__{stem}.json").read_text()))


def test_repro_with_two_jax_pins_runs_the_script_in_both(docker_client: Any, tmp_path: Path) -> None:
    result = _harness("repro", str(SNIPPETS / "jax_del_clear_caches.py"), "--with", "jax==0.9.2", "--with", "jax==0.10.2",
                      "--backend", "docker", "--variant", "cpu", "--setenv", "JAX_PLATFORMS=cpu", "--results", str(tmp_path))
    assert result.returncode == 0, result.stderr[-3000:]
    run_dir = _run_dir(tmp_path)
    for version in ("0.9.2", "0.10.2"):
        record = _record(run_dir, f"jax=={version}", "jax_del_clear_caches")
        assert record["status"] == "ok", (record["error"], record["stderr_tail"][-1500:])
        assert record["facts"]["frameworks"]["jax"] == version and record["facts"]["frameworks"]["jaxlib"] == version
        assert record["env"]["pin"] == f"jax=={version}" and f"jaxlib=={version}" in record["env"]["packages"]
        assert record["env"]["image"].startswith(f"{config.image_prefix()}/jax-{version}:cpu-")
        assert record["env_seen"]["JAX_PLATFORMS"] == "cpu"  # --setenv reached the container
        assert [cp["label"] for cp in record["checkpoints"]][1:5] == ["jax_del_clear_caches.py:4: import jax",
                                                                      "jax_del_clear_caches.py:5: import jax.numpy as jnp",
                                                                      "jax_del_clear_caches.py:10: del x, y",
                                                                      "jax_del_clear_caches.py:11: gc.collect()"]
    block = (run_dir / "repro.md").read_text()
    assert "**jax==0.9.2**: jax 0.9.2, jaxlib 0.9.2" in block and "**jax==0.10.2**: jax 0.10.2, jaxlib 0.10.2" in block
    assert "(jax==0.10.2, jaxlib==0.10.2 on python:3.11-slim-bookworm)" in block


def test_an_environment_that_cannot_be_built_is_its_own_result(docker_client: Any, tmp_path: Path) -> None:
    """jax 0.4.30 needs jaxlib >= 0.4.27: pip refuses the pair inside the build. The other
    environment still runs, the broken one's cell says why, and the exit code says not all ran."""
    broken = "jax==0.4.30,jaxlib==0.4.20"
    result = _harness("repro", str(SNIPPETS / "jax_del_clear_caches.py"), "--with", broken, "--with", "jax==0.10.2",
                      "--backend", "docker", "--variant", "cpu", "--setenv", "JAX_PLATFORMS=cpu", "--results", str(tmp_path))
    assert result.returncode == 4, result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    assert f"not every environment ran: {broken} could not be built or started" in result.stderr.replace("\n", "")
    run_dir = _run_dir(tmp_path)
    failed = _record(run_dir, broken, "jax_del_clear_caches")
    assert failed["status"] == "harness-error" and failed["error"]["type"] == "EnvironmentFailed"
    assert "failed" in failed["error"]["message"] and "jaxlib" in failed["error"]["message"]  # the cause and the log's tail
    assert _record(run_dir, "jax==0.10.2", "jax_del_clear_caches")["status"] == "ok"
    matrix = json.loads((run_dir / "matrix.json").read_text())
    assert matrix["cells"]["repro/jax_del_clear_caches"][broken]["status"] == "harness-error"


def test_a_script_importing_transformers_runs_with_the_torch_it_needs(docker_client: Any, tmp_path: Path) -> None:
    """`from transformers import ...`: the library's pin and the framework's make one environment
    (torch's CPU build from the wheelhouse CI hands over; transformers and its needs from PyPI)."""
    wheelhouse = os.environ.get("HARNESS_WHEELHOUSE")
    extra = ["--wheelhouse", wheelhouse] if wheelhouse and Path(wheelhouse).is_dir() else []
    pins = "transformers==4.57.1,torch==2.13.0"
    result = _harness("repro", str(SNIPPETS / "transformers_tiny.py"), "--with", pins, "--backend", "docker",
                      "--variant", "cpu", "--results", str(tmp_path), *extra)
    assert result.returncode == 0, result.stderr[-3000:]
    record = _record(_run_dir(tmp_path), pins, "transformers_tiny")
    assert record["status"] == "ok", (record["error"], record["stderr_tail"][-1500:])
    assert record["facts"]["frameworks"]["torch"].startswith("2.13.0")
    assert record["scenario"]["families"] == ["torch"]  # found through the import of transformers
    labels = [cp["label"] for cp in record["checkpoints"]]
    assert "transformers_tiny.py:11: del model, out" in labels and "transformers_tiny.py:12: gc.collect()" in labels
    alone = _harness("repro", str(SNIPPETS / "transformers_tiny.py"), "--with", "transformers==4.57.1", "--variant", "cpu",
                     "--results", str(tmp_path / "alone"))
    assert alone.returncode == 2 and "transformers loads torch; pin that release too" in alone.stderr


def test_a_release_without_a_wheel_is_skipped_with_the_reason(docker_client: Any, tmp_path: Path) -> None:
    result = _harness("repro", str(SNIPPETS / "jax_del_clear_caches.py"), "--with", "jax==0.1.56", "--backend", "docker",
                      "--variant", "cpu", "--results", str(tmp_path))
    assert result.returncode == 3, result.stderr[-2000:]  # nothing ran
    record = _record(_run_dir(tmp_path), "jax==0.1.56", "jax_del_clear_caches")
    assert record["status"] == "skipped"
    assert "no wheel for Linux x86_64" in record["error"]["message"] or "jaxlib" in record["error"]["message"]


def test_bisect_finds_the_planted_release_in_fewer_runs(docker_client: Any, tmp_path: Path) -> None:
    result = _harness("bisect", str(SNIPPETS / "six_planted.py"), "--package", "six", "--good", "1.11.0", "--bad", "1.17.0",
                      "--backend", "docker", "--variant", "cpu", "--results", str(tmp_path))
    assert result.returncode == 0, result.stderr[-3000:]
    run_dir = _run_dir(tmp_path)
    summary = json.loads((run_dir / "bisect.json").read_text())
    assert summary["releases"] == ["1.11.0", "1.12.0", "1.13.0", "1.14.0", "1.15.0", "1.16.0", "1.17.0"]
    assert summary["first_bad"] == "1.15.0" and summary["last_good"] == "1.14.0"
    ran = [r["version"] for r in summary["runs"]]
    assert len(ran) < len(summary["releases"]) and len(set(ran)) == len(ran)
    by_version = {r["version"]: r for r in summary["runs"]}
    assert by_version["1.15.0"]["bad"] is True and by_version["1.14.0"]["bad"] is False
    assert by_version["1.15.0"]["meter"] == "rss" and by_version["1.15.0"]["value"] > 256 * 1024 * 1024
    assert "**first bad: 1.15.0 (last good: 1.14.0)**" in result.stdout
    for name in ("bisect.md", "matrix.md", "matrix.json", "report.html"):
        assert (run_dir / name).is_file(), name
    assert len(list(run_dir.glob("six==*/repro__six_planted.json"))) == len(ran)


def test_a_script_that_hangs_still_names_its_framework(cpu_image: Any, tmp_path: Path) -> None:
    cpu_image("jax")
    result = _harness("repro", str(SNIPPETS / "jax_hangs.py"), "--env", "jax", "--timeout", "20", "--results", str(tmp_path))
    assert result.returncode == 0, result.stderr[-2000:]
    record = _record(_run_dir(tmp_path), "jax", "jax_hangs")
    assert record["status"] == "timeout"
    assert record["facts"]["frameworks"]["jax"] == "0.10.2" and record["facts"]["python"]
    assert "**jax**: jax 0.10.2" in result.stdout and "Python 3.11" in result.stdout
