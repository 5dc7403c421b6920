"""PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True: does del alone give memory back?

Beyond the seeds: the allocator knob users reach for after empty_cache. With expandable
segments the allocator maps memory in pages it can unmap; this records whether del or only
empty_cache returns it in this version. A release that does not read the variable (a renamed
one, PYTORCH_ALLOC_CONF from torch 2.9) would measure the default allocator and say nothing:
where the allocator's snapshot tells, a peak held in no expandable segment stops the cell.
"""
import gc
import os

import torch
from _torchkit import empty_cache_step, on_gpu, ready_then_peak


def expandable_mapped():
    """Whether torch's allocator holds an expandable segment now; None where its snapshot does not say."""
    try:
        segments = torch.cuda.memory_snapshot()
    except Exception:
        return None
    said = [bool(s["is_expandable"]) for s in segments if "is_expandable" in s]
    return any(said) if said else None


META = {"gpu_only": "expandable_segments changes how torch's CUDA caching allocator maps GPU memory",
        "families": ["torch"], "technique": "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True, del, empty_cache",
        "params": {"gib": 2.0}, "cpu_params": {"gib": 0.5},
        "env": {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"},
        "since": {"torch": ["2.1", "PYTORCH_CUDA_ALLOC_CONF's expandable_segments"]}}

x = ready_then_peak(checkpoint, PARAMS["gib"])
if on_gpu() and expandable_mapped() is False:
    said = ", ".join("%s=%s" % (name, os.environ[name]) for name in ("PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF")
                     if name in os.environ) or "no allocator variable"
    raise Unsupported("torch's allocator holds the peak in no expandable segment (%s here): expandable segments are "
                      "off, and the cell would measure the default allocator" % said)
del x
gc.collect()
checkpoint("after_del")
empty_cache_step(checkpoint)
