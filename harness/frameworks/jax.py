"""JAX (jaxlib released with it)."""
from __future__ import annotations

from harness.frameworks.framework import Framework, GpuBuild

JAX_CUDA_RELEASES = "https://storage.googleapis.com/jax-releases/jax_cuda_releases.html"

FRAMEWORK = Framework(
    name="jax",
    families=("jax",),
    distributions=("jax", "jaxlib"),
    libraries=("flax", "optax", "haiku", "equinox", "jaxlib", "orbax"),
    companions=(("<0.4.30", ("numpy<2",)),),
    reported_with=("jaxlib",),
    released_with="jaxlib",
    # docs.jax.dev/en/latest/gpu_memory_allocation.html, jax/_src/config.py
    variables=("XLA_PYTHON_CLIENT_PREALLOCATE", "XLA_PYTHON_CLIENT_MEM_FRACTION", "XLA_PYTHON_CLIENT_ALLOCATOR",
               "XLA_FLAGS", "JAX_PLATFORMS", "JAX_PLATFORM_NAME", "JAX_ENABLE_X64", "JAX_COMPILATION_CACHE_DIR"),
    # its CUDA build through jax's own extra: the plugin on PyPI from 0.4.26, jaxlib's CUDA wheels on Google's
    # page from 0.4.14; before, CUDA 11 wheels from outside PyPI only
    gpu_builds=(
        GpuBuild(">=0.4.26", extra="cuda12"),
        GpuBuild(">=0.4.14,<0.4.26", extra="cuda12_pip", find_links=JAX_CUDA_RELEASES),
        GpuBuild("<0.4.14", unavailable="CUDA builds before 0.4.14 need CUDA 11 wheels from outside PyPI; "
                                       "give an image with --image"),
    ),
)
