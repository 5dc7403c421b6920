"""Functions jit-compiled for many shapes, then jax.clear_caches().

JAX's documentation: jax.jit compiles a function anew for each new input shape and caches the
result, and ``jax.clear_caches()`` "clear[s] all compilation and staging caches". Each compiled
executable holds host memory (and, on a GPU, code on the device); ``compile#n`` is read after each
new shape, then ``after_clear_caches``.
"""
import gc

import jax
import jax.numpy as jnp

META = {"families": ["jax"], "seed": "jax-docs:jax.clear_caches",
        "technique": "jit compiled for many shapes; jax.clear_caches() + gc", "params": {"shapes": 40},
        "cleanup": ["after_clear_caches"]}

jnp.ones(8).block_until_ready()
checkpoint("ready")


@jax.jit
def step(x):
    for _ in range(20):
        x = jnp.tanh(x @ x.T[:, :1] + x)
    return x.sum()


for n in range(1, PARAMS["shapes"] + 1):
    step(jnp.ones((n, 8))).block_until_ready()  # a new shape: a new compilation
    checkpoint("compile#%d" % n)
jax.clear_caches()
gc.collect()
checkpoint("after_clear_caches")
