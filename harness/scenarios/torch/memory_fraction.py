"""torch.cuda.set_per_process_memory_fraction: a cap on what the caching allocator may take.

Beyond the seeds. The cap is the allocator's, not the driver's: an allocation over it raises
an out-of-memory error, and memory under it is still cached after del until empty_cache.
"""
import torch
from _torchkit import GiB, device, empty_cache_step, filled, init

META = {"gpu_only": "the fraction caps torch's CUDA caching allocator",
        "families": ["torch"], "technique": "set_per_process_memory_fraction, then del + empty_cache",
        "params": {"gib": 1.0, "cap_gib": 2.0}, "cpu_params": {"gib": 0.5},
        "since": {"torch": ["1.8", "torch.cuda.set_per_process_memory_fraction"]}}

dev = device()
if dev.type != "cuda":
    raise Unsupported("set_per_process_memory_fraction applies to CUDA devices only")
warmed = init(dev)
total = torch.cuda.get_device_properties(0).total_memory
torch.cuda.set_per_process_memory_fraction(PARAMS["cap_gib"] * GiB / float(total))
checkpoint("ready", **warmed)
x = filled(PARAMS["gib"], dev)
checkpoint("peak")
try:
    filled(PARAMS["cap_gib"], dev)
    over_cap = "allowed"
except RuntimeError as exc:  # torch.OutOfMemoryError subclasses RuntimeError
    over_cap = "refused: " + str(exc).splitlines()[0][:120]
print("allocation over the cap:", over_cap)
del x
checkpoint("after_del")
empty_cache_step(checkpoint)
