"""Create a Keras model, run it once, del it (seed 001, example 1), then clear_session.

Seed 001: "Despite this [del model], the GPU memory allocated by this operation typically
remains occupied": TF's allocator keeps what it has mapped.
"""
from _tf2kit import clear_session_step, collect, dense_model, device_name, init, tf

META = {"families": ["tf2"], "seed": "001_aed2418fb12c43dd.txt", "technique": "del model (+ gc), then clear_session",
        "params": {"width": 8192, "layers": 4}, "cpu_params": {"width": 4096}}

init()
checkpoint("ready")
with tf.device(device_name()):
    model = dense_model(PARAMS["width"], PARAMS["layers"])
    _ = model(tf.random.normal((8, PARAMS["width"])))
checkpoint("peak")
del model, _
collect()
checkpoint("after_del")
clear_session_step(checkpoint)
