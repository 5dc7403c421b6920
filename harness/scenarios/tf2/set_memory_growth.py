"""tf.config.experimental.set_memory_growth(gpu, True) before the runtime starts.

Seed 001: set_memory_growth "can be used to control memory usage by preventing TensorFlow from
greedily occupying all available GPU memory." The ``greedy_default`` variant is the control:
no growth option, so ``after_init`` shows what TF maps by default.
"""
import tensorflow as tf

from _tf2kit import init_then_allocate

META = {"gpu_only": "memory growth changes how TensorFlow's GPU allocator maps GPU memory",
        "families": ["tf2"], "seed": "001_aed2418fb12c43dd.txt", "technique": "set_memory_growth(True) before init",
        "params": {"gib": 1.0, "growth": True}, "cpu_params": {"gib": 0.5},
        "variants": {"greedy_default": {"params": {"growth": False}}}, "cleanup": ["after_del"]}

gpus = tf.config.list_physical_devices("GPU")
for gpu in gpus if PARAMS["growth"] else []:
    tf.config.experimental.set_memory_growth(gpu, True)
checkpoint("ready")  # nothing initialised yet
init_then_allocate(checkpoint, gpus, PARAMS["gib"], "no GPU: memory growth only changes GPU allocation")
