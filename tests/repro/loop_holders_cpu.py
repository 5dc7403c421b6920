# The two loops most leak reports are (pytorch forums, "CPU memory keeps increasing"): a loss summed with its
# graph, and outputs kept in a list; no cleanup line anywhere, so only the search at the end can name them.
import numpy as np
import torch

model = torch.nn.Linear(1024, 1024)
total_loss = 0
outputs = []
for step in range(30):
    x = torch.randn(512, 1024)
    loss = model(x).pow(2).mean()
    total_loss += loss
    outputs.append(np.ones((1024, 1024)))  # 8 MiB each
print("FIDELITY loop done", len(outputs), total_loss.requires_grad)
