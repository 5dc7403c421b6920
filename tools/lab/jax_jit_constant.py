"""What holds the extra copy of an array a jitted function reads through a global (JAX on a GPU):
its live arrays, their referrers, and what jax.clear_caches() gives back. Prints what it finds."""
import gc
import os

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

dev = jax.devices()[0]


def in_use():
    return dev.memory_stats()["bytes_in_use"] >> 20


table = jnp.zeros((2048, 4096), dtype=jnp.float32)
print("after table", in_use(), "MiB in use;", len(jax.live_arrays()), "live arrays")


@jax.jit
def lookup(i):
    return table[i]


row = lookup(3)
row.block_until_ready()
del row
gc.collect()
print("after lookup", in_use(), "MiB in use;", len(jax.live_arrays()), "live arrays")
for a in jax.live_arrays():
    same = a is table
    print(" live", a.shape, a.dtype, a.nbytes >> 20, "MiB", "is table" if same else "NOT table",
          "committed" if getattr(a, "_committed", None) else "")
    if not same:
        for ref in gc.get_referrers(a)[:6]:
            print("   referrer", type(ref).__name__, str(ref)[:120].replace("\n", " "))
            for ref2 in gc.get_referrers(ref)[:4]:
                print("     referrer2", type(ref2).__name__, str(ref2)[:120].replace("\n", " "))
print("lookup cache size", getattr(lookup, "_cache_size", lambda: "?")())
lookup.clear_cache() if hasattr(lookup, "clear_cache") else None
gc.collect()
print("after lookup.clear_cache()", in_use(), "MiB in use;", len(jax.live_arrays()), "live arrays")
jax.clear_caches()
gc.collect()
print("after jax.clear_caches()", in_use(), "MiB in use;", len(jax.live_arrays()), "live arrays")
