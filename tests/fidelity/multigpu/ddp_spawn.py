"""DDP with mp.spawn: one rank per GPU over NCCL; each rank's result printed by the parent, in rank order."""
import os
import sys
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def rank_main(rank, world, folder):
    dist.init_process_group("nccl", init_method="tcp://127.0.0.1:29533", rank=rank, world_size=world)
    torch.cuda.set_device(rank)
    x = torch.full((64 * 2**20,), float(rank + 1), device="cuda")  # 256 MiB per rank
    dist.all_reduce(x)
    peak = torch.cuda.max_memory_allocated(rank)
    with open(os.path.join(folder, str(rank)), "w") as out:
        out.write("rank %d on cuda:%d sum %.1f peak %d MiB\n" % (rank, torch.cuda.current_device(), x[0].item(), peak >> 20))
    del x
    dist.destroy_process_group()


if __name__ == "__main__":
    world = torch.cuda.device_count()
    print("FIDELITY devices %d" % world)
    if world < 2:
        sys.exit(3)
    folder = tempfile.mkdtemp()
    mp.spawn(rank_main, args=(world, folder), nprocs=world)
    for rank in range(world):
        print("FIDELITY " + open(os.path.join(folder, str(rank))).read().strip())
