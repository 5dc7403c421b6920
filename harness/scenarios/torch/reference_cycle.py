"""A tensor caught in a reference cycle: del alone frees nothing until gc.collect() runs.

The seed's "setting variables ... to None might not immediately trigger garbage collection unless
there are no other references": a cycle is the common such reference.
"""
import gc

from _torchkit import device, empty_cache_step, filled, init

META = {"families": ["torch"], "seed": "004_be17292fde94c561.txt",
        "technique": "reference cycle: del, gc.collect, empty_cache", "params": {"gib": 2.0},
        "cpu_params": {"gib": 0.5}}


class Holder(object):
    def __init__(self, tensor):
        self.tensor = tensor
        self.me = self  # the cycle


gc.disable()  # deterministic: only the explicit collect below may break the cycle
dev = device()
checkpoint("ready", **init(dev))
holder = Holder(filled(PARAMS["gib"], dev))
checkpoint("peak")
del holder
checkpoint("after_del")
gc.collect()
checkpoint("after_gc")
empty_cache_step(checkpoint)
gc.enable()
