# In the style of a TF 2.x report: "memory grows in a loop even with clear_session()".
import gc

import numpy as np
import tensorflow as tf

for trial in range(2):
    model = tf.keras.Sequential([tf.keras.Input(shape=(1024,)), tf.keras.layers.Dense(2048, activation="relu"),
                                 tf.keras.layers.Dense(10)])
    model.compile(optimizer="adam", loss="mse")
    model.fit(np.random.rand(512, 1024), np.random.rand(512, 10), epochs=1, batch_size=128, verbose=0)
    del model
    tf.keras.backend.clear_session()
    gc.collect()
print("finished")
