"""CuPy's device memory pool: del keeps the blocks in the pool; free_all_blocks() returns them.

CuPy's documentation (Memory management): the memory pool "significantly improves the
performance by mitigating the overhead of memory allocation"; freed arrays go back to the pool,
and `cupy.get_default_memory_pool().free_all_blocks()` releases its unused blocks.
"""
import gc

import cupy
from _cupykit import require_device

META = {"gpu_only": "CuPy's device memory pool holds GPU memory",
        "families": ["cupy"], "seed": "cupy-docs:memory",
        "technique": "default memory pool: del, then free_all_blocks()", "params": {"gib": 2.0}}

require_device(Unsupported)
cupy.zeros(1).sum()
checkpoint("ready")
x = cupy.ones(int(PARAMS["gib"] * 1024 ** 3) // 4, dtype=cupy.float32)
cupy.cuda.Device().synchronize()
checkpoint("peak")
del x
gc.collect()
checkpoint("after_del")
cupy.get_default_memory_pool().free_all_blocks()
checkpoint("after_free_all_blocks")
