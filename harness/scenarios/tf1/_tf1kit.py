"""Helpers shared by the TF1 graph/session scenarios (imported from the scenario's folder).

Runs inside the environment: Python 2.7 and 3.5+. TF 1.x runs natively; TF 2.x through
tf.compat.v1 with eager execution off, as the seeds show.
"""
import os

import tensorflow as tf

TF2 = int(tf.__version__.split(".")[0]) >= 2
v1 = tf.compat.v1 if TF2 else tf
if TF2:
    v1.disable_eager_execution()

GiB = 1024 ** 3


def has_gpu():
    """A CUDA build of TF and an NVIDIA device, without asking TF (asking would allocate)."""
    return bool(tf.test.is_built_with_cuda()) and (
        os.path.exists("/proc/driver/nvidia/version") or os.path.exists("/dev/nvidia0"))


def config(allow_growth=None, fraction=None):
    cfg = v1.ConfigProto()
    if allow_growth is not None:
        cfg.gpu_options.allow_growth = allow_growth
    if fraction is not None:
        cfg.gpu_options.per_process_gpu_memory_fraction = fraction
    return cfg


def big_variable(gib, name="big"):
    """A float32 variable of ``gib`` GiB on the default device, and its initializer."""
    n = int(gib * GiB) // 4
    var = v1.Variable(v1.ones([n], dtype=tf.float32), name=name)
    return var, v1.global_variables_initializer()


def warm_session(cfg=None):
    """A session whose device and allocator are initialised by one tiny op."""
    sess = v1.Session(config=cfg if cfg is not None else config())
    sess.run(v1.constant(1.0))
    return sess


def session_started(checkpoint, why):
    """``after_session_start``: what the session's start mapped, or a skipped step without a GPU."""
    if has_gpu():
        checkpoint("after_session_start")
    else:
        checkpoint("after_session_start", skipped=why)


def hold(sess, checkpoint, gib, read_back=False):
    """A variable of ``gib`` GiB initialised in ``sess`` (and read back), then ``peak``; returns (var, init)."""
    var, init = big_variable(gib)
    sess.run(init)
    if read_back:
        sess.run(v1.reduce_sum(var))
    checkpoint("peak")
    return var, init
