"""Hangs past any timeout, with a child in its own session that would outlive a plain kill."""
import subprocess
import sys
import time
META = {"timeout": 60, "params": {"pidfile": ""}}
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], preexec_fn=__import__("os").setsid)
with open(PARAMS["pidfile"], "w") as handle:
    handle.write("%d\n" % child.pid)
checkpoint("ready")
time.sleep(600)
