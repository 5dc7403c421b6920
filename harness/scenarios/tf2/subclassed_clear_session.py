"""A subclassed Keras model trained one step; del everything, then clear_session (seed 004, ex. 2).

Seed 004: clear_session, "when called on a GPU enabled session, ensures the GPU backend
associated with the TensorFlow session has been cleared."
"""
from _tf2kit import clear_session_step, collect, device_name, init, tf

META = {"families": ["tf2"], "seed": "004_be17292fde94c561.txt",
        "technique": "subclassed model: del model/optimizer/tensors, clear_session",
        "params": {"width": 8192, "batch": 1024}, "cpu_params": {"width": 4096, "batch": 64}}


class WideNet(tf.keras.Model):
    def __init__(self, width):
        super(WideNet, self).__init__()
        self.fc1 = tf.keras.layers.Dense(width, activation="relu")
        self.fc2 = tf.keras.layers.Dense(width, activation="relu")
        self.fc3 = tf.keras.layers.Dense(2)

    def call(self, x):
        return self.fc3(self.fc2(self.fc1(x)))


init()
checkpoint("ready")
with tf.device(device_name()):
    model = WideNet(PARAMS["width"])
    optimizer = tf.keras.optimizers.SGD(learning_rate=0.01)
    inputs = tf.random.normal((PARAMS["batch"], PARAMS["width"]))
    with tf.GradientTape() as tape:
        output = model(inputs)
        loss = tf.reduce_mean(tf.square(output - tf.random.normal((PARAMS["batch"], 2))))
    gradients = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables))
    checkpoint("peak")
    del model, optimizer, inputs, output, loss, gradients, tape
    collect()
    checkpoint("after_del")
clear_session_step(checkpoint)
