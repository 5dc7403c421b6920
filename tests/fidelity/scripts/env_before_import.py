"""Variables a script sets before importing its framework take effect: thread count, allocator."""
import os
import sys

os.environ["OMP_NUM_THREADS"] = "1"  # under the cores of any machine: torch would otherwise take them all
os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "backend:cudaMallocAsync"
print("FIDELITY torch imported before the script: %s" % ("torch" in sys.modules))
try:
    import torch
except ImportError:
    print("FIDELITY no torch")
    sys.exit(0)
print("FIDELITY threads %d" % torch.get_num_threads())
if torch.cuda.is_available():
    x = torch.ones(1024, device="cuda")
    print("FIDELITY allocator %s" % torch.cuda.memory.get_allocator_backend())
    del x
