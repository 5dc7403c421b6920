"""One rank ends while the other still holds its GPU: rank 0 finishes at once, rank 1 keeps 1 GiB on
its own GPU for 5 s more (uneven work, or a rank left waiting on a peer that has gone)."""
import os
import sys
import tempfile
import time

import torch
import torch.multiprocessing as mp


def rank_main(rank, world, folder):
    torch.cuda.set_device(rank)
    x = torch.ones((256 if rank else 64) * 2**20, device="cuda")  # rank 1: 1 GiB, rank 0: 256 MiB
    if rank:
        time.sleep(5)
    with open(os.path.join(folder, str(rank)), "w") as out:
        out.write("rank %d on cuda:%d held %d MiB\n" % (rank, x.device.index, x.numel() * 4 >> 20))


if __name__ == "__main__":
    world = torch.cuda.device_count()
    print("FIDELITY devices %d" % world)
    if world < 2:
        sys.exit(3)
    folder = tempfile.mkdtemp()
    mp.spawn(rank_main, args=(world, folder), nprocs=world)
    for rank in range(world):
        print("FIDELITY " + open(os.path.join(folder, str(rank))).read().strip())
