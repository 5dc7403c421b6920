"""A TorchScript model loaded, then moved to cuda:1 (as a public report does): what each GPU holds."""
import os
import tempfile

import torch

path = os.path.join(tempfile.mkdtemp(), "model.pt")
torch.jit.save(torch.jit.script(torch.nn.Linear(4096, 4096)), path)
model = torch.jit.load(path).to("cuda:1")
for step in range(3):
    out = model(torch.randn(256, 4096, device="cuda:1"))
    del out
torch.cuda.empty_cache()
print("FIDELITY torchscript on cuda:1: reserved cuda:0 %d MiB, cuda:1 %d MiB"
      % (torch.cuda.memory_reserved(0) >> 20, torch.cuda.memory_reserved(1) >> 20))
