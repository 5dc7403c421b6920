# From "empty_cache() does not free everything": a 62 MiB tensor, one kernel on it, deleted, cache emptied.
import torch

t = torch.ones(62 * 1024 * 1024 // 4, device="cuda")
t = t * 2  # a kernel: the runtime loads its module on first use
torch.cuda.synchronize()
del t
torch.cuda.empty_cache()
print("reserved after empty_cache:", torch.cuda.memory_reserved())
