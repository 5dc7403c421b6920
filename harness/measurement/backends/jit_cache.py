"""The CUDA JIT cache GPU containers keep between cells, as a bare run keeps ~/.nv.

A framework built without kernels for the GPU at hand (TF 2.7 or TF 1.8 on Hopper) has the driver
compile its PTX at the first CUDA start: half a minute for TF 2.7, minutes for TF 1.8. A bare
process caches the result under ~/.nv/ComputeCache and the next run starts at once; a container's
home goes with the container, so every cell would compile again. GPU containers therefore share one
cache folder on the host. It holds host disk only: GPU memory is the same with or without it.
"""
from __future__ import annotations

import os
from pathlib import Path

MOUNT = "/opt/harness/cuda-cache"
# The driver's largest cache (4 GiB; its default, 256 MiB, is too small for TF 2.7's kernels).
MAX_BYTES = str(4 * 1024**3)


def folder() -> Path:
    """The host folder, writable by the cells' non-root user (sticky, as /tmp)."""
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    path = root / "gpu-cleanup-matrix" / "cuda-cache"
    path.mkdir(parents=True, exist_ok=True)
    if path.stat().st_mode & 0o7777 != 0o1777:
        path.chmod(0o1777)
    return path


def environment(image_env: dict[str, str]) -> dict[str, str]:
    """The variables that point the driver at the mount, unless the image sets its own."""
    wanted = {"CUDA_CACHE_PATH": MOUNT, "CUDA_CACHE_MAXSIZE": MAX_BYTES}
    return {name: value for name, value in wanted.items() if name not in image_env}
