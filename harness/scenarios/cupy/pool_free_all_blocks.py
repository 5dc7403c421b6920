"""CuPy's device memory pool: del keeps the blocks in the pool; free_all_blocks() returns them.

CuPy's documentation (Memory management): the memory pool "significantly improves the
performance by mitigating the overhead of memory allocation"; freed arrays go back to the pool,
and `cupy.get_default_memory_pool().free_all_blocks()` releases its unused blocks.
"""
import gc
import os

import cupy

META = {"gpu_only": "CuPy's device memory pool holds GPU memory",
        "families": ["cupy"], "seed": "cupy-docs:memory",
        "technique": "default memory pool: del, then free_all_blocks()", "params": {"gib": 2.0}}

try:
    cupy.cuda.runtime.getDeviceCount()
except Exception as exc:  # CUDARuntimeError; without a driver CUDA says "driver version is insufficient"
    no_driver = not os.path.exists("/proc/driver/nvidia/version")
    raise Unsupported("CuPy needs a CUDA device: %s" % ("this host has no NVIDIA driver" if no_driver else exc))
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
