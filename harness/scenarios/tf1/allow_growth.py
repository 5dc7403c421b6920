"""ConfigProto allow_growth vs TF's default greedy allocation, then close.

Seed 003 / 001: TF by default maps nearly all GPU memory when the first session starts;
allow_growth=True maps only what is used. The ``greedy_default`` variant is the control.
"""
from _tf1kit import big_variable, config, has_gpu, v1

META = {
    "families": ["tf1"],
    "technique": "ConfigProto(gpu_options.allow_growth) vs default greedy",
    "seed": "003_2d2cfc7532446a01.txt",
    "params": {"gib": 1.0, "allow_growth": True},
    "cpu_params": {"gib": 0.5},
    "variants": {"greedy_default": {"params": {"allow_growth": False}}},
    "cleanup": ["after_close"],
}

checkpoint("ready")  # before any session: nothing initialised yet
sess = v1.Session(config=config(allow_growth=bool(PARAMS["allow_growth"])))
sess.run(v1.constant(1.0))
if has_gpu():
    checkpoint("after_session_start")
else:
    checkpoint("after_session_start", skipped="no GPU: allow_growth only changes GPU allocation")
var, init = big_variable(PARAMS["gib"])
sess.run(init)
checkpoint("peak")
sess.close()
checkpoint("after_close")
