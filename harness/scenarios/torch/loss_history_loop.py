"""An evaluation loop that sums its losses as tensors with autograd on, keeping every iteration's graph.

PyTorch's FAQ ("My model reports cuda runtime error(2): out of memory"): "Don't accumulate history
across your training loop. ... total_loss += loss ... accumulates history across your training
loop, since loss is a differentiable variable with autograd history"; the fix it gives is
``total_loss += float(loss)``. With no backward() to free them, each kept graph also keeps its
saved activations, so memory grows per iteration. ``step#n`` is read after each; the ``as_float``
variant sums floats, ``no_grad`` runs the loop under torch.no_grad() ("reduces memory
consumption for computations that would otherwise have requires_grad=True", its documentation).
Then the total is deleted and the cache emptied.
"""
import gc

import torch
from _torchkit import device, empty_cache_step, init

META = {"families": ["torch"], "seed": "pytorch-docs:faq#accumulate-history",
        "technique": "total_loss += loss with autograd on vs float(loss) vs torch.no_grad(); del; empty_cache",
        "params": {"steps": 30, "mib_per_step": 32, "width": 1024, "as_float": False, "no_grad": False},
        "variants": {"as_float": {"params": {"as_float": True}}, "no_grad": {"params": {"no_grad": True}}},
        "cleanup": ["after_del", "after_empty_cache"]}

dev = device()
checkpoint("ready", **init(dev))
width = PARAMS["width"]
rows = int(PARAMS["mib_per_step"] * 1024 * 1024 / 4 / width)  # one saved activation of this size per step
model = torch.nn.Sequential(torch.nn.Linear(width, width), torch.nn.ReLU(), torch.nn.Linear(width, 1)).to(dev)
total = 0.0
for n in range(1, PARAMS["steps"] + 1):
    with torch.set_grad_enabled(not PARAMS["no_grad"]):
        loss = model(torch.randn(rows, width, device=dev)).pow(2).mean()
    total = total + (float(loss) if PARAMS["as_float"] else loss)
    del loss
    checkpoint("step#%d" % n)
del total, model
gc.collect()
checkpoint("after_del")
empty_cache_step(checkpoint)
