"""Session.close() after a graph holding a large variable.

Seed 000: "While sess.close() deallocates Python-level objects associated with the session, it
doesn't directly instruct the CUDA driver to release the allocated memory" (TF 1.8).
"""
from _tf1kit import hold, warm_session

# Not GPU-only: a closed session keeps its variables' host memory too (TF 2.21 on a CPU: about 1 GiB),
# a finding of its own that a CPU run shows as one.
META = {"families": ["tf1"], "seed": "000_1c2752142478237e.txt", "technique": "Session.close()",
        "params": {"gib": 1.0}, "cpu_params": {"gib": 0.5}}

sess = warm_session()
checkpoint("ready")
var, init = hold(sess, checkpoint, PARAMS["gib"], read_back=True)
sess.close()
checkpoint("after_close")
