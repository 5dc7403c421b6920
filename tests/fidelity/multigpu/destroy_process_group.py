"""One process, one rank per GPU is not needed: a single-rank NCCL group, destroyed; what stays after."""
import torch
import torch.distributed as dist

dist.init_process_group("nccl", init_method="tcp://127.0.0.1:29534", rank=0, world_size=1)
torch.cuda.set_device(0)
x = torch.ones(16 * 2**20, device="cuda")
dist.all_reduce(x)
print("FIDELITY all_reduce %.1f" % x[0].item())
del x
dist.destroy_process_group()
torch.cuda.empty_cache()
print("FIDELITY after destroy: %d MiB reserved" % (torch.cuda.memory_reserved(0) >> 20))
