"""DDP on CPU (gloo), launched with `torchrun --nproc_per_node=2 ddp_gloo.py --epochs N`."""
import argparse
import sys

import torch
import torch.distributed as dist

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=1)
args = parser.parse_args()

dist.init_process_group("gloo")
rank = dist.get_rank()
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(256, 256))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(args.epochs):
    model(torch.randn(64, 256)).sum().backward()
    opt.step()
sys.stdout.write("rank %d of %d ran %d epochs\n" % (rank, dist.get_world_size(), args.epochs))
del model, opt
dist.destroy_process_group()
