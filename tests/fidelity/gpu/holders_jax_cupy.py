"""Holders in JAX and CuPy on a GPU: CuPy arrays kept in a list after a del, a JAX array kept in a
dict. Prints what it kept; under repro, each holder is named at the cleanup lines."""
import cupy as cp
import jax.numpy as jnp

pool = [cp.zeros((64 << 20) // 4, dtype=cp.float32) for _ in range(2)]  # 128 MiB kept in a list
x = cp.ones(1 << 20, dtype=cp.float32)
del x
cache = {"w": jnp.zeros((4096, 4096), dtype=jnp.float32)}  # 64 MiB kept in a dict
y = jnp.ones((1024,))
del y
print("FIDELITY kept", len(pool), "cupy arrays and", len(cache), "jax array")
