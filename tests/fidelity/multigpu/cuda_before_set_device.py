"""One process that touches CUDA before choosing cuda:1: a context on GPU 0 it never uses again."""
import torch

torch.cuda.synchronize()  # CUDA starts on the current device, GPU 0
torch.cuda.set_device(1)
x = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")  # 1 GiB on cuda:1
del x
torch.cuda.empty_cache()
print("FIDELITY current device %d, reserved cuda:1 %d MiB" % (torch.cuda.current_device(), torch.cuda.memory_reserved(1) >> 20))
