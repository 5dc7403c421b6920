import torch
model = torch.nn.Linear(2048, 2048)
opt = torch.optim.Adam(model.parameters())
losses = []
for step in range(4):
    loss = model(torch.randn(256, 2048)).pow(2).mean()
    loss.backward()
    opt.step()
    losses.append(model(torch.randn(256, 2048)).sum())  # kept with its graph: no backward, its activations stay
del model, loss
print("done", len(losses), sum(p.numel() * 4 for p in opt.param_groups[0]["params"]) >> 20, "MiB of parameters")
