"""Session.close() followed by reset_default_graph(), then a fresh small session.

Seeds 000 (Example 2) and 002: close the session and reset the graph "to guarantee a complete
memory reset"; the seed's second small session shows whether the memory is available again.
"""
from _tf1kit import config, hold, v1, warm_session

META = {"families": ["tf1"], "seed": "002_c1b13a36cfe93241.txt",
        "technique": "Session.close() + reset_default_graph()", "params": {"gib": 1.0}, "cpu_params": {"gib": 0.5}}

sess = warm_session()
checkpoint("ready")
var, init = hold(sess, checkpoint, PARAMS["gib"], read_back=True)
sess.close()
checkpoint("after_close")
v1.reset_default_graph()
checkpoint("after_reset_graph")
del sess, var, init
small = v1.Session(config=config())
small.run(v1.random_normal((100, 100)))
checkpoint("after_new_small_session")
small.close()
