"""Three classic holders after the cleanup lines, on a CPU (no GPU needed): a list that keeps every
output with its autograd graph, an optimizer that outlives `del model`, an exception whose traceback
keeps a frame. Prints what it did; under repro, what holds the host memory is named at each cleanup line."""
import gc

import torch

model = torch.nn.Linear(4096, 4096)
opt = torch.optim.Adam(model.parameters())
history = []
for step in range(3):
    x = torch.randn(2048, 4096)
    loss = model(x).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
    history.append(model(x).sum())  # an output kept with its graph (no backward): its activations stay
del model, x, loss
gc.collect()


def train():
    acts = torch.empty(256 << 20, dtype=torch.uint8)  # noqa: F841
    acts.fill_(1)  # touched: the pages are the process's
    raise RuntimeError("out of memory (planted)")


try:
    train()
except RuntimeError as exc:
    err = exc
gc.collect()
print("FIDELITY done", len(history), "outputs kept")
