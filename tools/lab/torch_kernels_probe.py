"""One process of an old torch on a GPU: how long its first CUDA start takes (the JIT of its PTX on a
GPU it has no machine code for) and which kinds of kernel then run. Python 3.6+, stdlib and
the torch under test; prints one line. Run there as `python torch_kernels_probe.py` in the release's
environment (first-start-1.0.1.txt in matrix/reference/h100-580.159.04-old-torch is its output)."""
import sys
import time

t0 = time.time()
import torch  # noqa: E402

t1 = time.time()
out = [f"{torch.__version__}: import {t1 - t0:.1f}s"]
try:
    x = torch.ones(1024, 1024, device="cuda")
    torch.cuda.synchronize()
    out.append("first CUDA tensor %.1fs" % (time.time() - t1))
    kinds = [("add", lambda: x + x), ("sum", lambda: x.sum()), ("matmul", lambda: torch.mm(x, x)),
             ("randn", lambda: torch.randn(64, 64, device="cuda")), ("relu", lambda: torch.relu(x)),
             ("conv", lambda: torch.nn.functional.conv2d(torch.ones(1, 3, 32, 32, device="cuda"),
                                                         torch.ones(8, 3, 3, 3, device="cuda")))]
    for name, kernel in kinds:
        try:
            kernel()
            torch.cuda.synchronize()
            out.append(f"{name} ok")
        except Exception as exc:
            out.append(f"{name} FAIL {str(exc).splitlines()[0][:80]}")
    pool = getattr(torch.cuda, "memory_reserved", None) or torch.cuda.memory_cached
    out.append(f"allocated {torch.cuda.memory_allocated()} reserved/cached {pool()}")
except Exception as exc:
    out.append(f"FAIL {str(exc).splitlines()[0][:120]}")
out.append("total %.1fs" % (time.time() - t0))
print(" | ".join(out))
sys.stdout.flush()
