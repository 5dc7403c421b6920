"""Every rank touches the GPU before set_device: each makes a CUDA context on GPU 0 as well as its own."""
import os
import tempfile

import torch
import torch.multiprocessing as mp


def rank_main(rank, world, folder):
    torch.zeros(1).cuda()  # before set_device: lands on cuda:0, whatever the rank
    torch.cuda.set_device(rank)
    x = torch.ones(32 * 2**20, device="cuda")  # 128 MiB on the rank's own GPU
    with open(os.path.join(folder, str(rank)), "w") as out:
        out.write("rank %d on cuda:%d, %d MiB\n" % (rank, x.device.index, x.numel() * 4 >> 20))


if __name__ == "__main__":
    world = torch.cuda.device_count()
    print("FIDELITY devices %d" % world)
    folder = tempfile.mkdtemp()
    mp.spawn(rank_main, args=(world, folder), nprocs=world)
    for rank in range(world):
        print("FIDELITY " + open(os.path.join(folder, str(rank))).read().strip())
