"""del, then gc.collect(), then torch.cuda.empty_cache() on one large tensor.

The seed's advice: "explicitly calling torch.cuda.empty_cache() after releasing references is an
effective way to reclaim the freed memory". Each step gets its own checkpoint, so the matrix
shows which one really hands memory back to the driver.
"""
from _torchkit import del_and_collect, empty_cache_step, ready_then_peak

META = {"families": ["torch"], "seed": "004_be17292fde94c561.txt",
        "technique": "del + gc.collect + torch.cuda.empty_cache", "params": {"gib": 4.0}, "cpu_params": {"gib": 0.5}}

state = {"x": ready_then_peak(checkpoint, PARAMS["gib"])}  # the tensor's only reference
del_and_collect(checkpoint, state)
empty_cache_step(checkpoint)
