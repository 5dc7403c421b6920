"""No cleanup at all: a TF session holds a large variable and the process simply exits.

Seed 002: "Simply exiting a Python script or a notebook doesn't always guarantee a complete
release of allocated GPU resources." The reading after exit settles it.
"""
from _tf1kit import hold, warm_session

META = {"families": ["tf1"], "seed": "002_c1b13a36cfe93241.txt",
        "technique": "plain process exit with an open session, no cleanup", "params": {"gib": 1.0},
        "cpu_params": {"gib": 0.5}}

sess = warm_session()
checkpoint("ready")
var, init = hold(sess, checkpoint, PARAMS["gib"])
