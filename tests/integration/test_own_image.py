"""Bring your own image: an existing image (a cpu image under another tag) runs through the matrix."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT


@pytest.mark.parametrize("declared", [True, False])
def test_an_existing_image_is_an_environment(declared: bool, cpu_image, docker_client, tmp_path: Path) -> None:
    docker_client.images.get(cpu_image("torch")).tag("myorg/train", "2024-05")
    try:
        argv = [sys.executable, "-m", "harness", "matrix", "--image", "myorg/train:2024-05",
                "--scenario", "torch/del_gc_empty_cache", "--scenario", "torch/reference_cycle", "--results", str(tmp_path)]
        if declared:
            argv += ["--family", "torch"]
        result = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=600, env=dict(os.environ, NO_COLOR="1"))
        assert result.returncode == 0, result.stderr[-3000:]
        if not declared:
            assert "API families detected inside the image: torch" in result.stderr
        (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir()]
        matrix = json.loads((run_dir / "matrix.json").read_text())
        assert matrix["environments"] == ["train-2024-05"]
        cells = [matrix["cells"][name]["train-2024-05"] for name in ("torch/del_gc_empty_cache", "torch/reference_cycle")]
        assert [c["status"] for c in cells] == ["ok", "ok"]
        assert cells[0]["framework"]["torch"].startswith("2.13.0")
        record = json.loads((run_dir / "train-2024-05" / "torch__reference_cycle.json").read_text())
        assert record["env"]["image"] == "myorg/train:2024-05" and record["env"]["kind"] == "image"
        assert [s["verdict"] for s in record["verdicts"]["steps"]][:1] == ["held"]  # the cycle holds it, on RSS
    finally:
        docker_client.images.remove("myorg/train:2024-05")


def test_a_missing_image_is_one_clear_line(docker_client, tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "harness", "matrix", "--image", "myorg/absent:1", "--family", "torch",
                             "--results", str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=120,
                            env=dict(os.environ, NO_COLOR="1"))
    assert result.returncode == 2
    info = ("variant", "plan:", "GPU access", "backend:")  # what the run said before failing: not errors
    lines = [line for line in result.stderr.splitlines() if line.strip() and not line.startswith(info)]
    assert lines == ["gpu-cleanup-matrix: error: image 'myorg/absent:1' is not on this host: `docker pull myorg/absent:1`, "
                     "or pass --pull"]
