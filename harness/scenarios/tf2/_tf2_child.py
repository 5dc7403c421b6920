"""Work done in a spawned child (must live in an importable module for spawn to find it)."""


def tf_child(gib, holding, release):
    from _tf2kit import device_name, init, tf

    init()
    with tf.device(device_name()):
        x = tf.ones([int(gib * 1024 ** 3) // 4])
        float(tf.reduce_sum(x))
    holding.set()
    release.wait(300)
