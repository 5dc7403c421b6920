"""torch.multiprocessing.spawn's workers, each keeping a tensor after `del` of another (CPU here)."""
import torch
import torch.multiprocessing as mp


def work(rank, world):
    x = torch.ones(16 << 20)  # 64 MiB
    y = x * 2  # 64 MiB more, still named after `del x`
    del x
    print("rank %d of %d: %.1f" % (rank, world, float(y[0])), flush=True)


if __name__ == "__main__":
    mp.spawn(work, args=(2,), nprocs=2)
    print("spawned 2 ranks")
