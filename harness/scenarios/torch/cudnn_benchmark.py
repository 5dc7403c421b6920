"""cudnn.benchmark=True on a convolution: autotuning tries algorithms with large workspaces.

Beyond the seeds. The timeline shows the workspace spike between checkpoints; the cleanup
steps show whether it stays cached.
"""
import torch
from _torchkit import device, empty_cache_step, init

META = {"gpu_only": "cuDNN's autotuning workspaces are GPU memory",
        "families": ["torch"], "technique": "cudnn.benchmark autotuning workspace, del + empty_cache",
        "params": {"batch": 64, "channels": 256, "size": 128},
        "cpu_params": {"batch": 8, "channels": 64, "size": 128}}

dev = device()
torch.backends.cudnn.benchmark = True
checkpoint("ready", **init(dev))
conv = torch.nn.Conv2d(PARAMS["channels"], PARAMS["channels"], 3, padding=1).to(dev)
x = torch.randn(PARAMS["batch"], PARAMS["channels"], PARAMS["size"], PARAMS["size"], device=dev)
with torch.no_grad():
    y = conv(x)
if dev.type == "cuda":
    torch.cuda.synchronize()
checkpoint("peak")
del conv, x, y
checkpoint("after_del")
empty_cache_step(checkpoint)
