"""per_process_gpu_memory_fraction: the session maps at most this share of the GPU."""
from _tf1kit import big_variable, config, has_gpu, v1

META = {
    "families": ["tf1"],
    "technique": "ConfigProto(per_process_gpu_memory_fraction)",
    "seed": "003_2d2cfc7532446a01.txt",
    "params": {"gib": 1.0, "fraction": 0.2},
    "cpu_params": {"gib": 0.5},
    "cleanup": ["after_close"],
}

checkpoint("ready")
sess = v1.Session(config=config(fraction=float(PARAMS["fraction"])))
sess.run(v1.constant(1.0))
if has_gpu():
    checkpoint("after_session_start")
else:
    checkpoint("after_session_start", skipped="no GPU: the fraction only caps GPU allocation")
var, init = big_variable(PARAMS["gib"])
sess.run(init)
checkpoint("peak")
sess.close()
checkpoint("after_close")
