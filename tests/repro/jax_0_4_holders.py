import jax
import jax.numpy as jnp
cache = {"table": jnp.ones((4096, 4096))}
x = jnp.ones((4096, 4096))
y = x * 2
del x
print("done", jax.__version__, float(y[0, 0]), len(cache))
