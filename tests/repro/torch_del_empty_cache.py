# From a typical "memory not freed after del model" report: train a bit, delete, empty the cache.
import gc

import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
model = torch.nn.Sequential(torch.nn.Linear(4096, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 4096)).to(device)
optimizer = torch.optim.Adam(model.parameters())
x = torch.randn(2048, 4096, device=device)
for step in range(3):
    loss = model(x).pow(2).mean()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
print("trained, loss", float(loss))
del model, optimizer
gc.collect()
torch.cuda.empty_cache()
del x, loss
torch.cuda.empty_cache()
print("done")
