"""Work done in a spawned child (an importable module, so spawn can find it)."""


def tf_child(gib):
    from _tf2kit import device_name, init, tf

    init()
    with tf.device(device_name()):
        x = tf.ones([int(gib * 1024 ** 3) // 4])
        float(tf.reduce_sum(x))
    return x
