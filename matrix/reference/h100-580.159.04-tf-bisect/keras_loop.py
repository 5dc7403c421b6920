"""Keras models built and fit in a loop, clear_session() and gc.collect() after each: the scenario
tf2/keras_models_in_loop as a user writes it, for `bisect --criterion growth`."""
import gc

import numpy as np
import tensorflow as tf

x = np.random.rand(512, 256).astype("float32")
y = np.random.rand(512, 1).astype("float32")
for n in range(60):
    model = tf.keras.Sequential([tf.keras.Input(shape=(256,)), tf.keras.layers.Dense(256, activation="relu"),
                                 tf.keras.layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse")
    model.fit(x, y, epochs=1, batch_size=64, verbose=0)
    del model
    tf.keras.backend.clear_session()
    gc.collect()
print("done", n + 1, "models")
