"""The control: del and gc.collect() alone, no empty_cache().

Shows what the caching allocator keeps once the tensor is gone: the framework counts it free,
the driver still sees it used (the "cached" verdict).
"""
from _torchkit import del_and_collect, ready_then_peak

META = {"gpu_only": "torch's CUDA caching allocator keeps freed blocks until empty_cache(); a CPU tensor's memory goes back through the C allocator",
        "families": ["torch"], "seed": "004_be17292fde94c561.txt",
        "technique": "del + gc.collect, no empty_cache (control)", "params": {"gib": 2.0}, "cpu_params": {"gib": 0.5}}

state = {"x": ready_then_peak(checkpoint, PARAMS["gib"])}  # the tensor's only reference
del_and_collect(checkpoint, state)
