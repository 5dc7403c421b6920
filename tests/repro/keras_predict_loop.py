"""predict() in a loop on TensorFlow 2.1-2.3: no name of the script keeps anything, yet each call leaves about 700
objects in reference cycles (the function graphs of its tf.data pipeline), freed only at the collector's next full
collection; until then the process's RSS grows."""
import numpy as np
import tensorflow as tf

inp = tf.keras.Input(shape=(10,))
model = tf.keras.Model(inp, tf.keras.layers.Dense(2)(tf.keras.layers.Dense(32)(inp)))
x = np.zeros((1, 10))
for i in range(1000):
    model.predict(x)
print("FIDELITY predict loop done", i + 1)
