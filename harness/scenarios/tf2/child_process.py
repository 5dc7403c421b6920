"""TF work in a spawned child process: when the child exits, the parent holds nothing.

The seeds' last resort, for TensorFlow: TF never hands its BFC pool back while the process
lives, so a child process is the one way to get all of it back.
"""
import multiprocessing

from _tf2_child import tf_child

META = {
    "families": ["tf2"],
    "technique": "work in a spawned child process; parent keeps nothing",
    "seed": "002_c1b13a36cfe93241.txt",
    "params": {"gib": 1.0},
    "cpu_params": {"gib": 0.5},
}

ctx = multiprocessing.get_context("spawn")
checkpoint("ready")
holding, release = ctx.Event(), ctx.Event()
child = ctx.Process(target=tf_child, args=(PARAMS["gib"], holding, release))
child.start()
if not holding.wait(300):
    raise RuntimeError("child never reported its allocation")
checkpoint("peak")
release.set()
child.join(120)
checkpoint("after_child_exit")
if child.exitcode != 0:
    raise RuntimeError("child exited with %s" % child.exitcode)
