"""Session.close() after a graph holding a large variable.

Seed 000: "While sess.close() deallocates Python-level objects associated with the session, it
doesn't directly instruct the CUDA driver to release the allocated memory" (TF 1.8).
"""
from _tf1kit import hold, warm_session

META = {"gpu_only": "TensorFlow's GPU allocator keeps its pool of GPU memory after the session closes; a CPU session holds host memory",
        "families": ["tf1"], "seed": "000_1c2752142478237e.txt", "technique": "Session.close()",
        "params": {"gib": 1.0}, "cpu_params": {"gib": 0.5}}

sess = warm_session()
checkpoint("ready")
var, init = hold(sess, checkpoint, PARAMS["gib"], read_back=True)
sess.close()
checkpoint("after_close")
