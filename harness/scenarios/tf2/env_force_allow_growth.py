"""TF_FORCE_GPU_ALLOW_GROWTH=true: the environment-variable form of set_memory_growth.

Beyond a code change: the variable users set in a launcher or a container. Compare ``after_init``
with tf2/set_memory_growth@greedy_default.
"""
import tensorflow as tf

from _tf2kit import init_then_allocate

META = {"gpu_only": "TF_FORCE_GPU_ALLOW_GROWTH changes how TensorFlow's GPU allocator maps GPU memory",
        "families": ["tf2"], "seed": "001_aed2418fb12c43dd.txt", "technique": "TF_FORCE_GPU_ALLOW_GROWTH=true",
        "params": {"gib": 1.0}, "cpu_params": {"gib": 0.5}, "cleanup": ["after_del"],
        "env": {"TF_FORCE_GPU_ALLOW_GROWTH": "true"}}

gpus = tf.config.list_physical_devices("GPU")
checkpoint("ready")
init_then_allocate(checkpoint, gpus, PARAMS["gib"], "no GPU: the variable only changes GPU allocation")
