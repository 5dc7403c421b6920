"""A tf.function retraced at every call, and the same function with a fixed input signature.

TensorFlow's guide (Better performance with tf.function): passing Python scalars or tensors of
new shapes makes the function retrace, and "retracing ... can be expensive"; each trace keeps a
new concrete function (its graph) alive in the function's cache. An ``input_signature`` (the
``signature`` variant) makes one trace serve every shape. ``call#n`` is read after each call;
``after_del`` after the function is deleted, ``after_clear_session`` after clear_session().
"""
from _tf2kit import clear_session_step, collect, device_name, init, tf

META = {"families": ["tf2"], "seed": "tf-docs:function#retracing",
        "technique": "tf.function called with new shapes (retraces); del the function; clear_session",
        "params": {"calls": 100, "signature": False},
        "variants": {"signature": {"params": {"signature": True}}}, "cleanup": ["after_del", "after_clear_session"]}

init()
checkpoint("ready")


def body(t):
    for _ in range(20):  # a graph of some size per trace
        t = tf.tanh(tf.matmul(t, t, transpose_b=True)[:, :1] + t)
    return tf.reduce_sum(t)


spec = [tf.TensorSpec(shape=[None, None], dtype=tf.float32)] if PARAMS["signature"] else None
step = tf.function(body, input_signature=spec)
with tf.device(device_name()):
    for n in range(1, PARAMS["calls"] + 1):
        float(step(tf.ones([n, 8])))  # a new shape each call
        checkpoint("call#%d" % n)
print("traces:", step.experimental_get_tracing_count())
del step
collect()
checkpoint("after_del")
clear_session_step(checkpoint)
