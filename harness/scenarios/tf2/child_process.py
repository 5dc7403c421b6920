"""TF work in a spawned child process: when the child exits, the parent holds nothing.

The seeds' last resort, for TensorFlow: TF never hands its BFC pool back while the process
lives, so a child process is the one way to get all of it back.
"""
from _tf2_child import tf_child

META = {"families": ["tf2"], "seed": "002_c1b13a36cfe93241.txt",
        "technique": "work in a spawned child process; parent keeps nothing", "params": {"gib": 1.0},
        "cpu_params": {"gib": 0.5}}

run_in_child(tf_child, PARAMS["gib"])
