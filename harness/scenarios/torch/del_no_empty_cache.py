"""The control: del and gc.collect() alone, no empty_cache().

Shows what the caching allocator keeps once the tensor is gone: the framework counts it free,
the driver still sees it used (the "cached" verdict).
"""
import gc

from _torchkit import ready_then_peak

META = {
    "families": ["torch"],
    "technique": "del + gc.collect, no empty_cache (control)",
    "seed": "004_be17292fde94c561.txt",
    "params": {"gib": 2.0},
    "cpu_params": {"gib": 0.5},
}

x = ready_then_peak(checkpoint, PARAMS["gib"])
del x
checkpoint("after_del")
gc.collect()
checkpoint("after_gc")
