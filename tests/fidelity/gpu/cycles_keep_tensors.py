"""50 CUDA tensors (4 MiB each) that only their own reference cycles keep, with the collector off: torch counts
them in use until a collection; repro names them at `end` as cycles not yet collected (a forked copy counts them)."""
import gc, torch
gc.disable()
class N(object):
    pass
for _ in range(50):
    n = N(); n.me = n; n.t = torch.ones(1 << 20, device="cuda")
del n
print("CYC allocated", torch.cuda.memory_allocated() >> 20, "MiB")
