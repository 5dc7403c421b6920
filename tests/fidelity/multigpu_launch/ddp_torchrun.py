"""DDP launched by torchrun: one rank per GPU over NCCL, LOCAL_RANK picks the GPU; each rank prints its own line."""
import os
import sys

import torch
import torch.distributed as dist

local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
dist.init_process_group("nccl")
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4096, 4096).cuda(), device_ids=[local])
opt = torch.optim.Adam(model.parameters())
for _ in range(3):
    model(torch.randn(256, 4096, device="cuda")).sum().backward()
    opt.step()
    opt.zero_grad()
x = torch.full((64 * 2**20,), float(dist.get_rank() + 1), device="cuda")  # 256 MiB per rank
dist.all_reduce(x)
sys.stdout.write("FIDELITY rank %d of %d on cuda:%d sum %.1f\n" % (
    dist.get_rank(), dist.get_world_size(), torch.cuda.current_device(), x[0].item()))
del model, opt, x
torch.cuda.empty_cache()
dist.destroy_process_group()
