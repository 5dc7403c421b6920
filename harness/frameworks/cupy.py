"""CuPy (a wheel per CUDA major: cupy-cuda12x ...)."""
from __future__ import annotations

from harness.frameworks.framework import Framework

FRAMEWORK = Framework(
    name="cupy",
    families=("cupy",),
    distributions=("cupy", "cupy-cuda*"),
    libraries=("cupyx",),
    # docs.cupy.dev/en/stable/reference/environment.html
    variables=("CUPY_GPU_MEMORY_LIMIT", "CUPY_ACCELERATORS", "CUPY_CACHE_DIR", "CUPY_CUDA_PER_THREAD_DEFAULT_STREAM",
               "CUPY_TF32"),
)
