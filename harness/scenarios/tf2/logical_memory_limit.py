"""A memory limit through a logical device configuration: TF maps at most that much.

tf.config.set_logical_device_configuration(gpu, [LogicalDeviceConfiguration(memory_limit=MB)])
(tf.config.experimental.set_virtual_device_configuration on older 2.x).
"""
import tensorflow as tf

from _tf2kit import init_then_allocate

META = {"gpu_only": "the limit caps what TensorFlow's GPU allocator maps",
        "families": ["tf2"], "technique": "logical device configuration with memory_limit",
        "params": {"gib": 1.0, "limit_mib": 3072}, "cpu_params": {"gib": 0.5}, "cleanup": ["after_del"]}

gpus = tf.config.list_physical_devices("GPU")
if gpus:
    config = tf.config.LogicalDeviceConfiguration(memory_limit=PARAMS["limit_mib"])
    tf.config.set_logical_device_configuration(gpus[0], [config])
checkpoint("ready")
init_then_allocate(checkpoint, gpus, PARAMS["gib"], "no GPU: the limit only applies to a GPU")
