"""per_process_gpu_memory_fraction: the session maps at most this share of the GPU."""
from _tf1kit import config, hold, session_started, warm_session

META = {"gpu_only": "the fraction caps what TensorFlow's GPU allocator maps",
        "families": ["tf1"], "seed": "003_2d2cfc7532446a01.txt",
        "technique": "ConfigProto(per_process_gpu_memory_fraction)", "params": {"gib": 1.0, "fraction": 0.2},
        "cpu_params": {"gib": 0.5}, "cleanup": ["after_close"]}

checkpoint("ready")
sess = warm_session(config(fraction=float(PARAMS["fraction"])))
session_started(checkpoint, "no GPU: the fraction only caps GPU allocation")
var, init = hold(sess, checkpoint, PARAMS["gib"])
sess.close()
checkpoint("after_close")
