"""Work done in a spawned child (must live in an importable module for spawn to find it)."""


def torch_child(gib, holding, release):
    from _torchkit import device, filled, init

    dev = device()
    init(dev)
    tensor = filled(gib, dev)
    holding.set()
    release.wait(300)
    del tensor
