"""Training under a tf.device scope with GradientTape; leave the scope, del, clear_session (seed 001, ex. 3).

Seed 001: "even after exiting the scope, TensorFlow's caching ... can still result in the
allocated GPU memory persisting beyond the block's execution."
"""
from _tf2kit import clear_session_step, collect, dense_model, device_name, init, tf

META = {"families": ["tf2"], "seed": "001_aed2418fb12c43dd.txt",
        "technique": "tf.device scope + GradientTape training; scope exit, del, clear_session",
        "params": {"width": 8192, "layers": 3, "batch": 512, "steps": 3}, "cpu_params": {"width": 4096, "batch": 32}}

init()
checkpoint("ready")


def train_with_scope():
    with tf.device(device_name()):
        model = dense_model(PARAMS["width"], PARAMS["layers"])
        optimizer = tf.keras.optimizers.Adam(learning_rate=0.001)
        for _ in range(PARAMS["steps"]):
            data = tf.random.normal((PARAMS["batch"], PARAMS["width"]))
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(data)))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
        checkpoint("peak")
        return model, optimizer


model, optimizer = train_with_scope()
checkpoint("after_scope_exit")
del model, optimizer
collect()
checkpoint("after_del")
clear_session_step(checkpoint)
