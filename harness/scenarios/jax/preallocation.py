"""JAX's GPU memory preallocation and what del and jax.clear_caches() give back.

JAX's documentation (GPU memory allocation): "JAX will preallocate 75% of the total GPU memory
when the first JAX operation is run"; XLA_PYTHON_CLIENT_PREALLOCATE=false "disables the
preallocation behavior"; XLA_PYTHON_CLIENT_ALLOCATOR=platform makes JAX "allocate exactly what
is needed on demand, and deallocate memory that is no longer needed"; XLA_PYTHON_CLIENT_MEM_FRACTION=.XX
makes JAX "preallocate XX% of the total GPU memory, instead of the default 75%". The variants set those.
"""
import gc

import jax
import jax.numpy as jnp

META = {"gpu_only": "XLA's preallocation and allocator settings are about GPU memory",
        "families": ["jax"], "seed": "jax-docs:gpu_memory_allocation",
        "technique": "default preallocation; del + gc; jax.clear_caches()", "params": {"gib": 2.0},
        "cpu_params": {"gib": 0.5},
        "variants": {"no_preallocate": {"env": {"XLA_PYTHON_CLIENT_PREALLOCATE": "false"}},
                     "platform_allocator": {"env": {"XLA_PYTHON_CLIENT_ALLOCATOR": "platform"}},
                     "mem_fraction": {"env": {"XLA_PYTHON_CLIENT_MEM_FRACTION": ".30"}}}}

checkpoint("ready")  # imported, no backend yet: nothing allocated
jnp.ones(8).block_until_ready()
on_gpu = jax.default_backend() == "gpu"
if on_gpu:
    checkpoint("after_init")
else:
    checkpoint("after_init", skipped="no GPU: preallocation only concerns the GPU")
x = jnp.ones(int(PARAMS["gib"] * 1024 ** 3) // 4, dtype=jnp.float32)
x.block_until_ready()
checkpoint("peak")
del x
gc.collect()
checkpoint("after_del")
jax.clear_caches()
gc.collect()
checkpoint("after_clear_caches")
