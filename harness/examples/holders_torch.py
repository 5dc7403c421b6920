"""Three classic holders after the cleanup lines, on a GPU: an optimizer that outlives `del model`,
a list of outputs kept with their autograd graphs, and an exception whose traceback keeps a frame.
Prints what it did; under repro, what holds the memory is named at each cleanup line."""
import torch

model = torch.nn.Linear(4096, 4096).cuda()
opt = torch.optim.Adam(model.parameters())
history = []
for step in range(3):
    x = torch.randn(1024, 4096, device="cuda")
    loss = model(x).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
    history.append(model(x).sum())  # an output kept with its graph (no backward): its activations stay
del model, x, loss
torch.cuda.empty_cache()


def train():
    acts = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")  # noqa: F841
    raise RuntimeError("out of memory (planted)")


try:
    train()
except RuntimeError as exc:
    err = exc
torch.cuda.empty_cache()
print("FIDELITY done", len(history), torch.cuda.memory_allocated() // (1 << 20), "MiB allocated")
