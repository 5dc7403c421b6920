"""Helpers shared by the TF2/Keras scenarios (imported from the scenario's folder). Python 3.5+."""
import gc

import tensorflow as tf

GiB = 1024 ** 3


def has_gpu():
    return bool(tf.config.list_physical_devices("GPU"))  # lists devices without allocating


def device_name():
    return "/GPU:0" if has_gpu() else "/CPU:0"


def init():
    """Start the runtime on the device so ``ready`` is a true floor."""
    with tf.device(device_name()):
        float(tf.reduce_sum(tf.ones([8])))


def dense_model(width, layers):
    """A Sequential MLP of ``layers`` Dense(width) layers: width*width*4 bytes of weights each."""
    return tf.keras.Sequential([tf.keras.Input(shape=(width,))] + [tf.keras.layers.Dense(width, activation="relu")
                                                                  for _ in range(layers)])


def collect():
    gc.collect()


def clear_session_step(checkpoint, label="after_clear_session"):
    tf.keras.backend.clear_session()
    gc.collect()
    checkpoint(label)
