"""Explicit del of the GradientTape and intermediate tensors after a step (seed 003, example 1).

Seed 003: "without it, the tape, containing intermediate tensors from the computation, remains
in memory." A persistent tape keeps its intermediates until deleted.
"""
from _tf2kit import clear_session_step, collect, dense_model, device_name, init, tf

META = {"families": ["tf2"], "seed": "003_2d2cfc7532446a01.txt",
        "technique": "del GradientTape (persistent) + intermediates; clear_session",
        "params": {"width": 8192, "layers": 2, "batch": 8192}, "cpu_params": {"width": 4096, "batch": 256}}

init()
checkpoint("ready")
with tf.device(device_name()):
    model = dense_model(PARAMS["width"], PARAMS["layers"])
    optimizer = tf.keras.optimizers.SGD(learning_rate=0.01)
    x = tf.random.normal((PARAMS["batch"], PARAMS["width"]))
    with tf.GradientTape(persistent=True) as tape:
        y = model(x)
        loss = tf.reduce_mean(tf.square(y))
    gradients = tape.gradient(loss, model.trainable_variables)
    checkpoint("peak")
    del tape
    collect()
    checkpoint("after_del_tape")
    del y, loss, x
    collect()
    checkpoint("after_del_intermediates")
    optimizer.apply_gradients(zip(gradients, model.trainable_variables))
    del gradients, model, optimizer
    collect()
    checkpoint("after_del_model")
clear_session_step(checkpoint)
