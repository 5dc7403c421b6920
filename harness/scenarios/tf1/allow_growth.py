"""ConfigProto allow_growth vs TF's default greedy allocation, then close.

Seed 003 / 001: TF by default maps nearly all GPU memory when the first session starts;
allow_growth=True maps only what is used. The ``greedy_default`` variant is the control.
"""
from _tf1kit import config, hold, session_started, warm_session

META = {"gpu_only": "allow_growth changes how TensorFlow's GPU allocator maps GPU memory",
        "families": ["tf1"], "seed": "003_2d2cfc7532446a01.txt",
        "technique": "ConfigProto(gpu_options.allow_growth) vs default greedy",
        "params": {"gib": 1.0, "allow_growth": True}, "cpu_params": {"gib": 0.5},
        "variants": {"greedy_default": {"params": {"allow_growth": False}}}, "cleanup": ["after_close"]}

checkpoint("ready")  # before any session: nothing initialised yet
sess = warm_session(config(allow_growth=bool(PARAMS["allow_growth"])))
session_started(checkpoint, "no GPU: allow_growth only changes GPU allocation")
var, init = hold(sess, checkpoint, PARAMS["gib"])
sess.close()
checkpoint("after_close")
