"""No cleanup at all: a TF session holds a large variable and the process simply exits.

Seed 002: "Simply exiting a Python script or a notebook doesn't always guarantee a complete
release of allocated GPU resources." The reading after exit settles it.
"""
from _tf1kit import big_variable, config, v1

META = {
    "families": ["tf1"],
    "technique": "plain process exit with an open session, no cleanup",
    "seed": "002_c1b13a36cfe93241.txt",
    "params": {"gib": 1.0},
    "cpu_params": {"gib": 0.5},
}

sess = v1.Session(config=config())
sess.run(v1.constant(1.0))
checkpoint("ready")
var, init = big_variable(PARAMS["gib"])
sess.run(init)
checkpoint("peak")
