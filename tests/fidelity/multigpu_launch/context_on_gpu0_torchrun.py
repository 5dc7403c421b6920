"""torchrun ranks that touch the GPU before set_device: every rank makes a context on GPU 0 too."""
import os
import sys

import torch

local = int(os.environ["LOCAL_RANK"])
torch.zeros(1).cuda()  # before set_device: lands on cuda:0, whatever the rank
torch.cuda.set_device(local)
x = torch.ones(32 * 2**20, device="cuda")  # 128 MiB on the rank's own GPU
sys.stdout.write("FIDELITY rank %d on cuda:%d, %d MiB\n" % (local, x.device.index, x.numel() * 4 >> 20))
del x
torch.cuda.empty_cache()
