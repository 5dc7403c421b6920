"""A loss kept with its autograd graph vs a detached one.

The seed: "Unless the computational graph is detached, the tensors might remain alive even after
they are no longer directly referenced". Here the activations are only reachable through the
loss's graph: deleting the model and inputs while keeping ``loss`` keeps them alive (held);
keeping ``loss.detach()`` instead lets them go.
"""
import torch
from _torchkit import GiB, device, empty_cache_step, init

META = {"families": ["torch"], "seed": "004_be17292fde94c561.txt",
        "technique": "keep loss (graph) vs loss.detach(); del + empty_cache", "params": {"gib": 2.0, "width": 4096},
        "cpu_params": {"gib": 0.5, "width": 2048}}

dev = device()
checkpoint("ready", **init(dev))
width = PARAMS["width"]
rows = int(PARAMS["gib"] * GiB / 4 / width / 4)  # four saved activations of this size
model = torch.nn.Sequential(
    torch.nn.Linear(width, width), torch.nn.ReLU(), torch.nn.Linear(width, width), torch.nn.ReLU()
).to(dev)
inputs = torch.randn(rows, width, device=dev)
loss = model(inputs).pow(2).mean()  # the graph saves the activations for backward
checkpoint("peak")
del model, inputs
checkpoint("after_del_model_keep_loss")
value = loss.detach()
del loss
checkpoint("after_del_loss_keep_detached")
empty_cache_step(checkpoint)
print("loss value kept:", float(value))
