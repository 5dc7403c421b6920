# A training loop whose DataLoader has worker processes (they hold no GPU memory; the main process does).
import torch
from torch.utils.data import DataLoader, TensorDataset

data = TensorDataset(torch.randn(4096, 1024), torch.randn(4096, 1))
loader = DataLoader(data, batch_size=256, num_workers=2, persistent_workers=True)
model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 1)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for epoch in range(2):
    for xb, yb in loader:
        loss = torch.nn.functional.mse_loss(model(xb.cuda()), yb.cuda())
        opt.zero_grad()
        loss.backward()
        opt.step()
del model, opt, loss, xb, yb
torch.cuda.empty_cache()
del loader
print("done")
