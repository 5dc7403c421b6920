"""TF_FORCE_GPU_ALLOW_GROWTH=true: the environment-variable form of set_memory_growth.

Beyond a code change: the variable users set in a launcher or a container. Compare ``after_init``
with tf2/set_memory_growth@greedy_default.
"""
import gc

import tensorflow as tf

META = {
    "families": ["tf2"],
    "technique": "TF_FORCE_GPU_ALLOW_GROWTH=true",
    "seed": "001_aed2418fb12c43dd.txt",
    "env": {"TF_FORCE_GPU_ALLOW_GROWTH": "true"},
    "params": {"gib": 1.0},
    "cpu_params": {"gib": 0.5},
    "cleanup": ["after_del"],
}

gpus = tf.config.list_physical_devices("GPU")
checkpoint("ready")
with tf.device("/GPU:0" if gpus else "/CPU:0"):
    float(tf.reduce_sum(tf.ones([8])))
    if gpus:
        checkpoint("after_init")
    else:
        checkpoint("after_init", skipped="no GPU: the variable only changes GPU allocation")
    x = tf.ones([int(PARAMS["gib"] * 1024 ** 3) // 4])
    float(tf.reduce_sum(x))
checkpoint("peak")
del x
gc.collect()
checkpoint("after_del")
