"""A launcher as torchrun is one: `fakerun.py N SCRIPT ARGS` runs `python SCRIPT ARGS` N times,
each with RANK set, and exits with the worst exit code."""
import os
import subprocess
import sys

n, rest = int(sys.argv[1]), sys.argv[2:]
procs = [subprocess.Popen([sys.executable, "-u"] + rest, env=dict(os.environ, RANK=str(r), LOCAL_RANK=str(r)))
         for r in range(n)]
sys.exit(max(p.wait() for p in procs))
