"""JAX (jaxlib released with it)."""
from __future__ import annotations

from harness.frameworks.framework import Framework

FRAMEWORK = Framework(
    name="jax",
    families=("jax",),
    distributions=("jax", "jaxlib"),
    libraries=("flax", "optax", "haiku", "equinox", "jaxlib", "orbax"),
    companions=(("<0.4.30", ("numpy<2",)),),
    reported_with=("jaxlib",),
    # docs.jax.dev/en/latest/gpu_memory_allocation.html, jax/_src/config.py
    variables=("XLA_PYTHON_CLIENT_PREALLOCATE", "XLA_PYTHON_CLIENT_MEM_FRACTION", "XLA_PYTHON_CLIENT_ALLOCATOR",
               "XLA_FLAGS", "JAX_PLATFORMS", "JAX_PLATFORM_NAME", "JAX_ENABLE_X64", "JAX_COMPILATION_CACHE_DIR"),
)
