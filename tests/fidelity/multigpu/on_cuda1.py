"""A script that works on the second GPU only (cuda:1)."""
import torch

print("FIDELITY devices %d" % torch.cuda.device_count())
x = torch.empty(2**30, dtype=torch.uint8, device="cuda:1")
print("FIDELITY allocated on cuda:1 %d MiB, on cuda:0 %d MiB"
      % (torch.cuda.memory_allocated(1) >> 20, torch.cuda.memory_allocated(0) >> 20))
del x
torch.cuda.empty_cache()
print("FIDELITY after empty_cache on cuda:1 %d MiB reserved" % (torch.cuda.memory_reserved(1) >> 20))
