import torch

temp = torch.ones([4000, 4000], device='cuda')
keep = temp * 2
del temp
torch.cuda.empty_cache()
print("FIDELITY allocated %d MiB, reserved %d MiB" % (torch.cuda.memory_allocated() >> 20, torch.cuda.memory_reserved() >> 20))
