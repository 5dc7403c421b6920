"""Holders as users write them, in three frameworks on one GPU: torch weights a closure keeps, a JAX
array a jitted function reads through a global, CuPy arrays kept in a dict. After each cleanup line
something still holds memory; under repro each holder is named. The script prints the sizes it
knows itself (the independent check)."""
import os

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # JAX beside torch: no 75% pool

import cupy as cp
import jax
import jax.numpy as jnp
import torch


def make_step():
    weights = torch.ones(4096, 4096, device="cuda")  # 64 MiB the closure keeps

    def step(x):
        return x @ weights

    return step


step = make_step()
y = step(torch.ones(16, 4096, device="cuda"))
del y
torch.cuda.empty_cache()

table = jnp.zeros((2048, 4096), dtype=jnp.float32)  # 32 MiB a global keeps for the jitted lookup


@jax.jit
def lookup(i):
    return table[i]


row = lookup(3)
row.block_until_ready()
del row

blocks = {"a": cp.zeros((16 << 20) // 4, dtype=cp.float32), "b": cp.zeros((16 << 20) // 4, dtype=cp.float32)}
scratch = cp.ones(1 << 20, dtype=cp.float32)
del scratch
cp.get_default_memory_pool().free_all_blocks()

closure_mib = step.__closure__[0].cell_contents.nbytes >> 20
print("FIDELITY closure", closure_mib, "MiB; table", table.nbytes >> 20, "MiB; blocks",
      sum(int(b.nbytes) for b in blocks.values()) >> 20, "MiB")
