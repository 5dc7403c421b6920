"""`%memory_why` in a real IPython shell on a lent GPU (#71): a kernel keeps CUDA tensors by a name, by `Out[N]`, in a
list and through an autograd graph; the magic's words are printed beside torch's own count and NVML's reading of
the process, so the named amounts can be checked against both. Run there with IPython on sys.path:
    python3 tools/lab/memory_why_gpu.py
"""
from __future__ import annotations

import os
import subprocess
import sys

from IPython.core.interactiveshell import InteractiveShell

CELLS = [
    "%load_ext gpu_cleanup_matrix",
    "import torch",
    "weights = torch.empty(256 << 20, dtype=torch.uint8, device='cuda')",
    "torch.empty(128 << 20, dtype=torch.uint8, device='cuda')",
    "kept = [torch.empty(32 << 20, dtype=torch.uint8, device='cuda') for _ in range(3)]",
    "p = torch.randn(4096, 4096, device='cuda', requires_grad=True)\nloss = (p.sin() * 2).sum()",
    "%memory_why",
    "print('torch memory_allocated', torch.cuda.memory_allocated())",
]


def nvml_used() -> str:
    """This process's GPU memory as the driver counts it (nvidia-smi, from outside the process)."""
    out = subprocess.run(["nvidia-smi", "--query-compute-apps=pid,used_memory", "--format=csv,noheader,nounits"],
                         capture_output=True, text=True).stdout
    mine = [line for line in out.splitlines() if line.split(",")[0].strip() == str(os.getpid())]
    return mine[0].split(",")[1].strip() + " MiB" if mine else "not listed"


def main() -> int:
    shell = InteractiveShell.instance()
    for cell in CELLS:
        result = shell.run_cell(cell, store_history=True)
        if not result.success:
            print("cell failed:", cell, file=sys.stderr)
            return 1
    print("nvidia-smi used by this process", nvml_used())
    return 0


if __name__ == "__main__":
    sys.exit(main())
