"""Run once per rank by a launcher: says what it was given; rank 1 fails when asked to."""
import os
import sys

sys.stdout.write("rank %s argv %s main %s channel %s\n" % (  # one write: two ranks' lines never interleave
    os.environ.get("RANK"), sys.argv[1:], __name__, os.environ.get("HARNESS_RANK_CHANNEL")))
held = bytearray(64 * 1024 * 1024)
del held
if "--fail" in sys.argv and os.environ.get("RANK") == "1":
    raise ValueError("rank 1 fails on purpose")
