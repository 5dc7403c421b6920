"""Work done in the child (an importable module, so spawn can find it)."""


def tf1_child(gib):
    from _tf1kit import big_variable, config, v1

    sess = v1.Session(config=config())
    var, init = big_variable(gib)
    sess.run(init)
    return sess, var
