"""Tensors made and deleted inside a function that also closes its session (seed 002, example 2).

"After performing the calculations ... all references to the generated tensors are explicitly
deleted using del, and finally, the session is closed."
"""
from _tf1kit import GiB, config, v1, warm_session

META = {"families": ["tf1"], "seed": "002_c1b13a36cfe93241.txt",
        "technique": "del tensors inside a function + Session.close()", "params": {"gib": 1.0},
        "cpu_params": {"gib": 0.25}}

warm = warm_session()
checkpoint("ready")
side = int((PARAMS["gib"] * GiB / 4 / 3) ** 0.5)  # three square float32 matrices


def computational_unit():
    session = v1.Session(config=config())
    a = v1.random_normal((side, side))
    b = v1.random_normal((side, side))
    c = v1.matmul(a, b)
    result = session.run(c)
    checkpoint("peak")
    del a, b, c, result
    session.close()


computational_unit()
checkpoint("after_function")
warm.close()
checkpoint("after_close_all")
