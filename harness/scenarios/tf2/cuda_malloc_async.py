"""TF_GPU_ALLOCATOR=cuda_malloc_async: CUDA's stream-ordered allocator instead of TF's BFC.

Beyond the seeds: the allocator switch users try when BFC keeps memory. It exists from TF 2.5;
older versions ignore the variable and measure BFC (2.4.4 on an H100: "held, 74.46 GiB"), so their cells
are no answer of the switch (META ``since``).
"""
import gc

import tensorflow as tf

from _tf2kit import clear_session_step, device_name, init

META = {"gpu_only": "TF_GPU_ALLOCATOR chooses TensorFlow's GPU allocator",
        "families": ["tf2"], "technique": "TF_GPU_ALLOCATOR=cuda_malloc_async, del, clear_session",
        "params": {"gib": 1.0}, "cpu_params": {"gib": 0.5}, "env": {"TF_GPU_ALLOCATOR": "cuda_malloc_async"},
        "since": {"tensorflow": ["2.5", "TF_GPU_ALLOCATOR=cuda_malloc_async"]}}

init()
checkpoint("ready")
with tf.device(device_name()):
    x = tf.ones([int(PARAMS["gib"] * 1024 ** 3) // 4])
    float(tf.reduce_sum(x))
checkpoint("peak")
del x
gc.collect()
checkpoint("after_del")
clear_session_step(checkpoint)
