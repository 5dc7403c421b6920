"""Batched training through a DataLoader, per-batch del, then del model/optimizer + empty_cache.

The seed's third example, sized so the signal is clear: a wide MLP trained on batches moved to
the device one at a time.
"""
import torch
from torch.utils.data import DataLoader, TensorDataset

from _torchkit import device, empty_cache_step, init

META = {"families": ["torch"], "seed": "004_be17292fde94c561.txt",
        "technique": "DataLoader batches + per-batch del, del model/optimizer + empty_cache",
        "params": {"width": 8192, "batch": 4096, "batches": 4}, "cpu_params": {"width": 4096, "batch": 256}}

dev = device()
checkpoint("ready", **init(dev))
width, batch = PARAMS["width"], PARAMS["batch"]
model = torch.nn.Sequential(torch.nn.Linear(width, width), torch.nn.ReLU(), torch.nn.Linear(width, 16)).to(dev)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
data = TensorDataset(torch.randn(batch * PARAMS["batches"], width), torch.randn(batch * PARAMS["batches"], 16))
for inputs, targets in DataLoader(data, batch_size=batch, shuffle=True):
    inputs, targets = inputs.to(dev), targets.to(dev)
    loss = torch.nn.functional.mse_loss(model(inputs), targets)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    del inputs, targets, loss
checkpoint("peak")
del model, optimizer
checkpoint("after_del_model_optimizer")
empty_cache_step(checkpoint)
