"""torch.compile(mode="reduce-overhead") (CUDA graphs), then cleanup and torch.compiler.reset().
Bare, the process ends a few seconds after its last line, once its compile workers shut down."""
import gc

import torch

MiB = 1024 * 1024
model = torch.nn.Sequential(torch.nn.Linear(4096, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 4096)).cuda()
compiled = torch.compile(model, mode="reduce-overhead")
x = torch.randn(512, 4096, device="cuda")
for _ in range(5):
    y = compiled(x)
torch.cuda.synchronize()
print("FIDELITY after compiled steps: allocated %d MiB" % (torch.cuda.memory_allocated() // MiB))
del y, compiled, model, x
gc.collect()
torch.compiler.reset()
torch.cuda.empty_cache()
print("FIDELITY after reset: allocated %d MiB, reserved %d MiB" % (
    torch.cuda.memory_allocated() // MiB, torch.cuda.memory_reserved() // MiB))
