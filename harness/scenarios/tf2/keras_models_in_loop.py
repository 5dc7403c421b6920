"""Keras models created and fitted in a loop, with and without clear_session() between them.

Keras's documentation of clear_session(): "If you are creating many models in a loop, this global
state will consume an increasing amount of memory over time, and you may want to clear it."
Seed 001 calls clear_session() "to explicitly clear the current session, aiming for more
immediate GPU memory release". Each round builds a small model, fits it for one epoch and drops
it; ``round#n`` is read after each, so the rounds' growth is a slope judged against its own
noise. The ``no_clear_session`` variant skips the call.
"""
import numpy as np
from _tf2kit import clear_session_step, collect, device_name, init, tf

META = {"families": ["tf2"], "seed": "keras-docs:clear_session",
        "technique": "models built and fit in a loop; clear_session() + gc each round",
        "params": {"rounds": 60, "width": 256, "clear": True},
        "variants": {"no_clear_session": {"params": {"clear": False}}}, "cleanup": ["after_clear_session"]}

init()
checkpoint("ready")
width = PARAMS["width"]
x = np.random.rand(512, width).astype("float32")
y = np.random.rand(512, 1).astype("float32")
with tf.device(device_name()):
    for n in range(1, PARAMS["rounds"] + 1):
        model = tf.keras.Sequential([tf.keras.Input(shape=(width,)), tf.keras.layers.Dense(width, activation="relu"),
                                     tf.keras.layers.Dense(1)])
        model.compile(optimizer="adam", loss="mse")
        model.fit(x, y, epochs=1, batch_size=64, verbose=0)
        del model
        if PARAMS["clear"]:
            tf.keras.backend.clear_session()
        collect()
        checkpoint("round#%d" % n)
clear_session_step(checkpoint)
