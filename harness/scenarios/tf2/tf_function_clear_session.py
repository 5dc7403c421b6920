"""A tf.function that builds and calls a model; del the function, then clear_session (seed 001, ex. 2).

Seed 001: "the cached graph often persists in memory. We employ clear_session() to explicitly
clear the current session, aiming for more immediate GPU memory release."
"""
from _tf2kit import clear_session_step, collect, dense_model, device_name, init, tf

META = {"families": ["tf2"], "seed": "001_aed2418fb12c43dd.txt",
        "technique": "tf.function cached graph: del function, clear_session", "params": {"width": 8192, "layers": 4},
        "cpu_params": {"width": 4096}}

init()
checkpoint("ready")
holder = {}


@tf.function
def run_model(x):
    if "model" not in holder:  # variables may only be created on the first trace
        holder["model"] = dense_model(PARAMS["width"], PARAMS["layers"])
    return holder["model"](x)


with tf.device(device_name()):
    y = run_model(tf.random.normal((8, PARAMS["width"])))
checkpoint("peak")
del run_model, y
collect()
checkpoint("after_del_function")
holder.clear()
collect()
checkpoint("after_del_model")
clear_session_step(checkpoint)
