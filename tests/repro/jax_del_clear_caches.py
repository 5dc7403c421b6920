# From a typical "jax does not free memory after del" report: compute, delete, collect, clear caches.
import gc

import jax
import jax.numpy as jnp

x = jnp.ones((4096, 4096), dtype=jnp.float32)  # 64 MiB
y = (x @ x).block_until_ready()
print("sum", float(y[0, 0]))
del x, y
gc.collect()
jax.clear_caches()
print("done")
