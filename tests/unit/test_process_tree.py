"""A cell's processes are found from its own tree, walked down from its root through each thread's children, not
by reading every process on the host: the same processes as the scan finds, a child a worker thread forked
included (the kernel lists it under that thread), and none once the root has ended."""
from __future__ import annotations

import subprocess
import sys
import time

from harness.measurement import procs

TREE = """
import subprocess, sys, threading, time
threading.Thread(target=lambda: subprocess.Popen(["sleep", "30"]), daemon=True).start()  # forked by a worker thread
subprocess.Popen(["sleep", "30"])
print("ready", flush=True)
time.sleep(30)
"""


def test_the_walk_finds_what_the_scan_finds() -> None:
    root = subprocess.Popen(["bash", "-c", f"sleep 30 & {sys.executable} -c '{TREE}' & wait"], stdout=subprocess.PIPE,
                            text=True)
    try:
        assert root.stdout is not None and root.stdout.readline().strip() == "ready"
        time.sleep(0.2)
        walked = procs.descendants(root.pid)
        assert len(walked) == 5, walked  # bash, its sleep, python, python's two sleeps
        assert walked == procs._descendants_by_scan(root.pid)
    finally:
        subprocess.run(["pkill", "-P", str(root.pid)], check=False)
        for pid in procs.descendants(root.pid) - {root.pid}:
            subprocess.run(["kill", str(pid)], check=False)
        root.kill()
        root.wait()
        if root.stdout is not None:
            root.stdout.close()
    assert procs.descendants(root.pid) == set()
