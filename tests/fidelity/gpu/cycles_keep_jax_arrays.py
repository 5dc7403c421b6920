"""20 JAX arrays (16 MiB each) that only their own reference cycles keep, with the collector off: JAX lists them
live until a collection; repro names them at `end` as cycles not yet collected (a forked copy counts them)."""
import gc
import jax.numpy as jnp
gc.disable()
class N(object):
    pass
for i in range(20):
    n = N(); n.me = n; n.a = jnp.ones((1 << 22,)) * i
del n
print("CYCJ done")
