"""CuPy (a wheel per CUDA major: cupy-cuda12x ...)."""
from __future__ import annotations

from harness.frameworks.framework import Framework, GpuBuild

FRAMEWORK = Framework(
    name="cupy",
    families=("cupy",),
    distributions=("cupy", "cupy-cuda*"),
    libraries=("cupyx",),
    # docs.cupy.dev/en/stable/reference/environment.html
    variables=("CUPY_GPU_MEMORY_LIMIT", "CUPY_ACCELERATORS", "CUPY_CACHE_DIR", "CUPY_CUDA_PER_THREAD_DEFAULT_STREAM",
               "CUPY_TF32"),
    # a CUDA 11 build on CUDA 11.8's runtime base where Ubuntu has one (no 24.04 image of it), else CUDA 12's
    gpu_builds=(GpuBuild("", "nvidia/cuda:11.8.0-runtime-ubuntu{ubuntu}", distribution="cupy-cuda11*",
                         ubuntus=("22.04", "20.04", "18.04")),),
)
