"""CuPy's pinned (page-locked host) memory pool: del keeps it; free_all_blocks() returns it.

Pinned memory is host memory, so the RSS meter tells what happens; CuPy's documentation says
the pinned memory pool is separate, with its own free_all_blocks().
"""
import gc

import cupy
import numpy
from _cupykit import require_device

META = {"families": ["cupy"], "seed": "cupy-docs:memory",
        "technique": "pinned memory pool: del, then free_all_blocks()", "params": {"gib": 1.0}, "meter": "rss"}

require_device(Unsupported)
cupy.zeros(1).sum()
checkpoint("ready")
nbytes = int(PARAMS["gib"] * 1024 ** 3)
pinned = cupy.cuda.alloc_pinned_memory(nbytes)
view = numpy.frombuffer(pinned, numpy.uint8, nbytes)
view[::4096] = 1  # touch every page
checkpoint("peak")
del view, pinned
gc.collect()
checkpoint("after_del")
cupy.get_default_pinned_memory_pool().free_all_blocks()
checkpoint("after_free_all_blocks")
