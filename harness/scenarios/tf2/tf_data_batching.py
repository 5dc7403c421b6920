"""Training from a tf.data pipeline in batches (seed 003, example 3), then del + clear_session.

Seed 003: "Instead of loading the entire dataset into memory, the Dataset API loads data in
smaller batches, reducing the memory required at any given time."
"""
import numpy as np

from _tf2kit import clear_session_step, collect, dense_model, device_name, init, tf

META = {"families": ["tf2"], "seed": "003_2d2cfc7532446a01.txt",
        "technique": "tf.data batches + GradientTape; del dataset/model, clear_session",
        "params": {"width": 8192, "layers": 2, "batch": 256, "batches": 8},
        "cpu_params": {"width": 4096, "batch": 32, "batches": 4}}

init()
checkpoint("ready")
width, batch = PARAMS["width"], PARAMS["batch"]
features = np.random.rand(batch * PARAMS["batches"], width).astype("float32")
labels = np.random.rand(batch * PARAMS["batches"], width).astype("float32")
dataset = tf.data.Dataset.from_tensor_slices((features, labels)).batch(batch)
with tf.device(device_name()):
    model = dense_model(width, PARAMS["layers"])
    optimizer = tf.keras.optimizers.SGD(learning_rate=0.01)
    for batch_features, batch_labels in dataset:
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(batch_features) - batch_labels))
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
checkpoint("peak")
del dataset, model, optimizer, batch_features, batch_labels, gradients, loss, tape
collect()
checkpoint("after_del")
clear_session_step(checkpoint)
