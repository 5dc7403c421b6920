"""Helpers shared by the torch scenarios (imported from the scenario's own folder).

Runs inside the environment: stdlib + torch only, Python 3.5+ syntax.
"""
import gc

import torch

GiB = 1024 ** 3


def device():
    """CUDA when there is a GPU; otherwise the CPU, so the code path still runs and is measured."""
    return torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")


def on_gpu():
    return torch.cuda.is_available()


def init(dev):
    """Initialise the framework on ``dev`` so ``ready`` is a true floor; returns what ``ready``
    must say of it (``checkpoint("ready", **init(dev))``).

    Beyond the CUDA context, a small matrix product loads cuBLAS, whose handle and workspace
    stay for the life of the process: without it, a scenario that trains would count the
    library's own memory as something its cleanup failed to return. A cuBLAS older than the GPU
    (CUDA 10's on Hopper) fails that product while the rest of the build runs: the scenario goes
    on without it, and ``ready`` says so (a step that calls cuBLAS fails with its own cause).
    """
    a = torch.ones(64, 64, device=dev)
    try:
        (a @ a).sum().item()
    except RuntimeError as exc:
        if dev.type != "cuda" or "cublas" not in str(exc).lower():
            raise
        try:
            torch.cuda.synchronize()  # a context the failure broke fails here too: the cell stops with its cause
        except RuntimeError:
            raise exc
        return {"note": {"without": "cuBLAS", "cause": str(exc).strip().splitlines()[0][:300]}}
    finally:
        del a
    if dev.type == "cuda":
        torch.cuda.synchronize()
    return {}


def filled(gib, dev):
    """A tensor of ``gib`` GiB, written (not just reserved), on ``dev``."""
    tensor = torch.ones(int(gib * GiB) // 4, dtype=torch.float32, device=dev)
    if dev.type == "cuda":
        torch.cuda.synchronize()
    return tensor


def ready_then_peak(checkpoint, gib):
    """Initialise (``ready``), then hold a written tensor of ``gib`` GiB (``peak``); returns it."""
    dev = device()
    checkpoint("ready", **init(dev))
    tensor = filled(gib, dev)
    checkpoint("peak")
    return tensor


def empty_cache_step(checkpoint, label="after_empty_cache"):
    """torch.cuda.empty_cache(), or a skipped step without a GPU (it is a no-op there)."""
    if on_gpu():
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        checkpoint(label)
    else:
        torch.cuda.empty_cache()
        checkpoint(label, skipped="no CUDA device: empty_cache has nothing to return")


def del_and_collect(checkpoint, state, name="x"):
    """The seed's two steps on a tensor whose only reference is ``state[name]``: ``del`` it
    (``after_del``), then ``gc.collect()`` (``after_gc``)."""
    del state[name]
    checkpoint("after_del")
    gc.collect()
    checkpoint("after_gc")
