"""PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True: does del alone give memory back?

Beyond the seeds: the allocator knob users reach for after empty_cache. With expandable
segments the allocator maps memory in pages it can unmap; this records whether del or only
empty_cache returns it in this version.
"""
import gc

from _torchkit import empty_cache_step, ready_then_peak

META = {"gpu_only": "expandable_segments changes how torch's CUDA caching allocator maps GPU memory",
        "families": ["torch"], "technique": "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True, del, empty_cache",
        "params": {"gib": 2.0}, "cpu_params": {"gib": 0.5},
        "env": {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"},
        "since": {"torch": ["2.1", "PYTORCH_CUDA_ALLOC_CONF's expandable_segments"]}}

x = ready_then_peak(checkpoint, PARAMS["gib"])
del x
gc.collect()
checkpoint("after_del")
empty_cache_step(checkpoint)
