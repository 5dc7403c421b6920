"""What a holder's tensors keep beyond themselves, and how they look: the tensors a torch autograd graph saved
for backward (activations no Python tensor holds), and a holder's arrays described by dtype and shape.

Runs inside the environment, in the script's process: stdlib only, Python 2.7 and 3.5+. Used by holders.py.
"""
import time

import live_arrays  # beside this file


def _is(obj, kinds):
    return issubclass(type(obj), kinds)


def saved_bytes(tensors, owned, unowned, budget_end):
    """Memory the autograd graphs of ``tensors`` keep alive beyond what the script's names hold: the
    activations their nodes saved for backward (``_saved_*``; freed by backward() unless the graph
    is retained), whether or not a Python tensor no name reaches still wraps them. Each storage
    once: none in ``owned``; one in ``unowned`` moves from there (updated) to the graph. Returns
    (bytes the graphs keep, of them the bytes no Python tensor wraps, whether any node showed what it saved:
    torch 1.0 shows none, so what its graphs keep cannot be read)."""
    total = fresh = 0
    readable = False
    seen = set()
    visited = []
    nodes = [t.grad_fn for t in tensors if getattr(t, "grad_fn", None) is not None]
    while nodes:
        if time.time() > budget_end:
            raise live_arrays.Budget()
        node = nodes.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        visited.append(node)  # torch makes a node's Python object on each access: kept, its id stays its own
        for name in dir(node):
            if not name.startswith("_saved_"):
                continue
            readable = True
            try:
                saved = getattr(node, name)
            except Exception:  # freed by backward(): nothing kept
                continue
            for value in saved if _is(saved, (tuple, list)) else (saved,):
                try:
                    key, size = live_arrays.storage_of(value)
                except Exception:
                    continue
                if key in owned:
                    continue
                owned.add(key)
                fresh += 0 if key in unowned else size  # wrapped by no Python tensor: not in the total yet
                total += unowned.pop(key, size)
        nodes.extend(fn for fn, _ in getattr(node, "next_functions", ()) or ())
    return total, fresh, readable


def describe(tensors):
    """'float32 [1024, 1024] x3' for a holder's arrays (the most common dtype and shape)."""
    shapes = {}
    for tensor in tensors:
        try:  # torch.float32 / TF's dtype (its name); TF's shape as a list of ints
            dtype = getattr(tensor.dtype, "name", None) or str(tensor.dtype).replace("torch.", "")
            shape = tensor.shape.as_list() if hasattr(tensor.shape, "as_list") else list(tensor.shape)
            key = "%s %s" % (dtype, shape)
        except Exception:
            continue
        shapes[key] = shapes.get(key, 0) + 1
    common = sorted(shapes.items(), key=lambda item: -item[1])[:2]
    return ", ".join("%s x%d" % item if item[1] > 1 else item[0] for item in common)
