"""The work runs in a child process (multiprocessing, spawn): when it exits, the parent holds nothing.

The seeds' last resort in every framework. The child allocates and waits; the parent takes the
checkpoints (the agent's run_in_child), so the child's memory is counted as the cell's.
"""
from _child_work import torch_child

META = {"families": ["torch"], "seed": "002_c1b13a36cfe93241.txt",
        "technique": "work in a spawned child process; parent keeps nothing", "params": {"gib": 2.0},
        "cpu_params": {"gib": 0.5}}

run_in_child(torch_child, PARAMS["gib"])
