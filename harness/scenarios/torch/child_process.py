"""The work runs in a child process (multiprocessing, spawn): when it exits, the parent holds nothing.

The seeds' last resort in every framework. The child allocates, tells the parent, and waits; the
parent takes the checkpoints (the child's memory is counted: it is one of the cell's processes).
"""
import multiprocessing

from _child_work import torch_child

META = {
    "families": ["torch"],
    "technique": "work in a spawned child process; parent keeps nothing",
    "seed": "002_c1b13a36cfe93241.txt",
    "params": {"gib": 2.0},
    "cpu_params": {"gib": 0.5},
}

ctx = multiprocessing.get_context("spawn")
checkpoint("ready")
holding, release = ctx.Event(), ctx.Event()
child = ctx.Process(target=torch_child, args=(PARAMS["gib"], holding, release))
child.start()
if not holding.wait(300):
    raise RuntimeError("child never reported its allocation")
checkpoint("peak")
release.set()
child.join(120)
checkpoint("after_child_exit")
if child.exitcode != 0:
    raise RuntimeError("child exited with %s" % child.exitcode)
