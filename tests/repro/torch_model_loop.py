# From a typical "memory grows every time I re-create the model" report: each iteration builds a
# model, keeps its output (and, through the autograd graph, the model's weights), then deletes it.
import torch

outputs = []
for i in range(30):
    model = torch.nn.Linear(2048, 2048).cuda()
    out = model(torch.randn(256, 2048, device="cuda"))
    outputs.append(out)  # the bug: `out` holds the graph, the graph holds the weights
    del model
    torch.cuda.empty_cache()
print("kept", len(outputs), "outputs")
