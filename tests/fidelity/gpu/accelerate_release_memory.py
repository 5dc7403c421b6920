"""accelerate's release_memory: `model, opt = release_memory(model, opt)`, the documented call."""
import torch
from accelerate.utils import release_memory

MiB = 1024 * 1024
model = torch.nn.Sequential(*[torch.nn.Linear(4096, 4096) for _ in range(8)]).cuda()
opt = torch.optim.AdamW(model.parameters())
loss = model(torch.randn(256, 4096, device="cuda")).square().mean()
loss.backward()
opt.step()
del loss
print("FIDELITY before: reserved %d MiB" % (torch.cuda.memory_reserved() // MiB))
model, opt = release_memory(model, opt)
print("FIDELITY after release_memory: allocated %d MiB, reserved %d MiB" % (
    torch.cuda.memory_allocated() // MiB, torch.cuda.memory_reserved() // MiB))
