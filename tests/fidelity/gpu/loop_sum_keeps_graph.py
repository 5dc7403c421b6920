"""The loop most GPU leak reports are (pytorch forums, "CUDA out of memory after some iterations"): a loss summed
with its graph and outputs kept on the GPU, no cleanup line anywhere. repro names both at the script's end, with
the line that grows each and its fix; what the script prints is what it prints bare."""
import torch

model = torch.nn.Linear(4096, 4096).cuda()
total_loss = 0
outputs = []
for step in range(20):
    x = torch.randn(2048, 4096, device="cuda")  # 32 MiB
    loss = model(x).pow(2).mean()
    total_loss += loss  # keeps this iteration's graph: x and the product, 64 MiB
    outputs.append(model(x).detach())  # 32 MiB each
torch.cuda.synchronize()
print("FIDELITY loop allocated MiB", torch.cuda.memory_allocated() >> 20, "outputs", len(outputs),
      "graph", total_loss.grad_fn is not None)
