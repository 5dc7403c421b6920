# A script whose helper process (its own session, as a daemonised worker would) holds 4 GiB on the GPU.
import subprocess
import sys
import time

import torch

x = torch.ones(1024, device="cuda")
helper = subprocess.Popen([sys.executable, "-c", (
    "import os, time, torch; os.setsid(); "
    "t = torch.empty(4 * 1024**3, dtype=torch.uint8, device='cuda'); torch.cuda.synchronize(); "
    "print('helper holds', t.numel(), flush=True); time.sleep(600)")])
time.sleep(12)  # the helper has made its context and allocated
del x
torch.cuda.empty_cache()
print("FIDELITY script done; its helper still running: %s" % (helper.poll() is None))
