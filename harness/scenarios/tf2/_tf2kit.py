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


def init_then_allocate(checkpoint, gpus, gib, why_skipped):
    """Start TF on the device (``after_init`` shows what the configuration made it map), then
    allocate ``gib`` GiB (``peak``), delete it (``after_del``). Without a GPU, ``after_init`` is
    a skipped step: allocation settings only concern the GPU."""
    with tf.device("/GPU:0" if gpus else "/CPU:0"):
        float(tf.reduce_sum(tf.ones([8])))
        if gpus:
            checkpoint("after_init")
        else:
            checkpoint("after_init", skipped=why_skipped)
        x = tf.ones([int(gib * GiB) // 4])
        float(tf.reduce_sum(x))
    checkpoint("peak")
    del x
    gc.collect()
    checkpoint("after_del")


def clear_session_step(checkpoint, label="after_clear_session"):
    tf.keras.backend.clear_session()
    gc.collect()
    checkpoint(label)
