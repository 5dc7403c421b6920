# JAX with XLA_PYTHON_CLIENT_PREALLOCATE=false (set by the caller): arrays freed, the pool keeps them.
import jax
import jax.numpy as jnp

xs = [jnp.ones((64, 1024, 1024), dtype=jnp.float32) for _ in range(1)]  # 256 MiB
y = (xs[0] * 2).block_until_ready()
small = jnp.ones((3 * 1024 * 1024,), dtype=jnp.float32)  # 12 MiB kept alive
del xs, y
jax.clear_caches()
print("live arrays:", len(jax.live_arrays()))
