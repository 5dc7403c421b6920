"""Training steps compiled with tf.function (seed 003, example 2), then del + clear_session.

Seed 003: "Employing tf.function compiles the model into a graph, improving performance and,
critically, memory management." The cleanup steps show what the traced graph keeps.
"""
from _tf2kit import clear_session_step, collect, dense_model, device_name, init, tf

META = {"families": ["tf2"], "seed": "003_2d2cfc7532446a01.txt",
        "technique": "tf.function training step; del model/optimizer/function, clear_session",
        "params": {"width": 8192, "layers": 3, "batch": 512, "steps": 3}, "cpu_params": {"width": 4096, "batch": 32}}

init()
checkpoint("ready")
with tf.device(device_name()):
    model = dense_model(PARAMS["width"], PARAMS["layers"])
    optimizer = tf.keras.optimizers.Adam(learning_rate=0.001)

    @tf.function
    def train_step(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x)))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    for _ in range(PARAMS["steps"]):
        train_step(tf.random.normal((PARAMS["batch"], PARAMS["width"])))
checkpoint("peak")
del train_step, model, optimizer
collect()
checkpoint("after_del")
clear_session_step(checkpoint)
