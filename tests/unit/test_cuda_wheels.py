"""The CUDA wheels a cell's environment holds, as its record names them (framework_view.cuda_wheels)."""
from __future__ import annotations

from pathlib import Path

from harness.agent.framework_view import cuda_wheels


def test_the_installed_cuda_wheels_are_named_with_their_versions(tmp_path: Path) -> None:
    site, other = tmp_path / "site-packages", tmp_path / "other"
    for folder in ("nvidia_cudnn_cu12-9.3.0.75.dist-info", "nvidia_cublas_cu12-12.5.3.2.dist-info",
                   "nvidia", "tensorflow-2.18.1.dist-info", "cuda_toolkit-13.0.2.dist-info"):
        (site / folder).mkdir(parents=True)
    (other / "nvidia_cudnn_cu12-8.9.7.29.dist-info").mkdir(parents=True)  # shadowed: the first on the path wins
    found = cuda_wheels([str(site), str(other), str(tmp_path / "missing"), ""])
    assert found == {"nvidia-cudnn-cu12": "9.3.0.75", "nvidia-cublas-cu12": "12.5.3.2", "cuda-toolkit": "13.0.2"}
    assert cuda_wheels([str(tmp_path / "missing")]) == {}
