"""TF1 work in a child process: when the child exits, the parent holds nothing.

Python 3 spawns the child; Python 2.7 (TF 1.8) has no spawn context, so it forks, which is
safe only because the parent has not imported TensorFlow.
"""
from _tf1_child import tf1_child

META = {"families": ["tf1"], "seed": "002_c1b13a36cfe93241.txt",
        "technique": "work in a child process (spawn; fork on Python 2.7); parent keeps nothing",
        "params": {"gib": 1.0}, "cpu_params": {"gib": 0.5}}

run_in_child(tf1_child, PARAMS["gib"])
