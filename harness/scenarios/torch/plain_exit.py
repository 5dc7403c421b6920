"""No cleanup at all: the process simply exits while holding memory.

The seeds' claim that "simply exiting a Python script ... doesn't always guarantee a complete
release": the reading after exit says whether the driver got everything back.
"""
from _torchkit import ready_then_peak

META = {"families": ["torch"], "seed": "002_c1b13a36cfe93241.txt", "technique": "plain process exit, no cleanup",
        "params": {"gib": 2.0}, "cpu_params": {"gib": 0.5}}

x = ready_then_peak(checkpoint, PARAMS["gib"])
