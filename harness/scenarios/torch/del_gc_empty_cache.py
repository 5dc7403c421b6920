"""del, then gc.collect(), then torch.cuda.empty_cache() on one large tensor.

The seed's advice: "explicitly calling torch.cuda.empty_cache() after releasing references is an
effective way to reclaim the freed memory". Each step gets its own checkpoint, so the matrix
shows which one really hands memory back to the driver.
"""
import gc

from _torchkit import empty_cache_step, ready_then_peak

META = {
    "families": ["torch"],
    "technique": "del + gc.collect + torch.cuda.empty_cache",
    "seed": "004_be17292fde94c561.txt",
    "params": {"gib": 4.0},
    "cpu_params": {"gib": 0.5},
}

x = ready_then_peak(checkpoint, PARAMS["gib"])
del x
checkpoint("after_del")
gc.collect()
checkpoint("after_gc")
empty_cache_step(checkpoint)
