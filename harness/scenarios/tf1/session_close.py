"""Session.close() after a graph holding a large variable.

Seed 000: "While sess.close() deallocates Python-level objects associated with the session, it
doesn't directly instruct the CUDA driver to release the allocated memory" (TF 1.8).
"""
from _tf1kit import big_variable, config, v1

META = {
    "families": ["tf1"],
    "technique": "Session.close()",
    "seed": "000_1c2752142478237e.txt",
    "params": {"gib": 1.0},
    "cpu_params": {"gib": 0.5},
}

sess = v1.Session(config=config())
sess.run(v1.constant(1.0))  # device and allocator initialised
checkpoint("ready")
var, init = big_variable(PARAMS["gib"])
sess.run(init)
sess.run(v1.reduce_sum(var))
checkpoint("peak")
sess.close()
checkpoint("after_close")
