"""What holds the framework's memory after a cleanup line: the objects, by the names that reach them.

Runs inside the environment, in the script's process: stdlib only, Python 2.7 and 3.5+. At a
checkpoint where a framework still counts live memory, the framework's live arrays are found
among the objects the garbage collector tracks (``gc.get_objects()``: no ``gc.collect()``, which
would change what the script holds), each counted once by its storage, and grouped by the nearest
name that reaches it: a global or a local of the script's frames (``losses``, ``model``, ``opt``),
walked through containers, attributes, a module's parameters, an optimizer's state, an exception's
traceback and its frames, the closure of a function the script defined; a tensor that keeps an autograd graph adds what its graph saved for
backward (activations no Python tensor holds). What no name reaches is said as unaccounted (a framework cache, a
closure, a reference cycle awaiting collection); a tensor kept by a cycle through its own autograd graph is named by
what closes it, and whether gc can ever free it (cycles.py). Time is bounded (``BUDGET_S``); the record says
when the budget was hit. Nothing found is kept: only names, counts and bytes leave this module, and,
for each holder, the script's line that first binds its name (made_at.py, from the script's source).

Frameworks: torch (CUDA tensors where CUDA started, else CPU tensors: host memory), CuPy (its
arrays, by the allocation they view), JAX (jax.live_arrays(), its own list), TensorFlow (eager
tensors and variables on the device it counts; in graph mode, each open session, whose graph's
variables live in it).
"""
import sys
import time
import types

import cycles  # beside this file
import graphs as autograd
import keras_graph
import live_arrays
import made_at

BUDGET_S = 0.5  # per checkpoint: the walk stops there and says so
MAX_DEPTH = 6  # from a name to an array: model.layers[3].weight is 4
MIN_BYTES = 1 << 20  # arrays smaller than this are counted, never named one by one
TOP = 8  # holders named per checkpoint, the largest first
KERAS_PILED = 1000  # operations in Keras' global graph: one model of a few layers makes 15-40


SKIPPED = (str, bytes, int, float, bool, type(None), type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType)


def _is(obj, kinds):
    """``isinstance`` by the object's type alone: ``isinstance`` asks an object of another type for its
    ``__class__``, which runs its own ``__getattribute__`` (``torch.distributed.reduce_op`` warns there),
    and the search must never run the script's code or raise a warning into it."""
    return issubclass(type(obj), kinds)


MODULE_DICTS = ("_parameters", "_buffers", "_modules")  # where a torch module keeps what its attributes name


def _closure(function, main):
    """(path suffix, value) of the variables a function of the script keeps in its closure (a
    function the script defined, never the framework's own)."""
    code = getattr(function, "__code__", None)
    if code is None or code.co_filename != getattr(main, "__file__", None):
        return
    for name, cell in zip(code.co_freevars, function.__closure__ or ()):
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell: the variable was never bound (or deleted)
            continue
        yield ".<closure %s>" % name, value


def _children(obj, torch, main=None):
    """(path suffix, child) pairs a walk follows from ``obj``."""
    if _is(obj, types.FunctionType):
        for pair in _closure(obj, main):
            yield pair
        return
    if _is(obj, dict):
        for key, value in list(obj.items())[:10000]:
            yield "[%r]" % (key if _is(key, (str, int)) else type(key).__name__,), value
            if torch is not None and _is(key, torch.Tensor):  # an optimizer's state is keyed by parameters
                yield "[key]", key
        return
    if _is(obj, (list, tuple, set, frozenset)):
        for i, value in enumerate(list(obj)[:10000]):
            yield "[%d]" % i, value
        return
    if _is(obj, BaseException):
        tb = getattr(obj, "__traceback__", None)
        while tb is not None:
            frame = tb.tb_frame
            for name, value in local_items(frame):
                yield ".__traceback__ (frame of %s()).%s" % (frame.f_code.co_name, name), value
            tb = tb.tb_next
        return
    try:  # the instance's own dict, read past any __getattr__ or property: nothing of the script's runs
        attrs = object.__getattribute__(obj, "__dict__")
    except Exception:
        return
    if _is(attrs, dict):  # an optimizer's .state (keyed by parameters) is an attribute like any other
        for name in MODULE_DICTS:  # a torch module: its weights by their names
            inner = attrs.get(name)
            if _is(inner, dict):
                for key, value in inner.items():
                    yield ".%s" % key, value
        for name, value in attrs.items():  # __wrapped__: what functools.wraps and jax.jit wrap
            if (not name.startswith("__") or name == "__wrapped__") and name not in MODULE_DICTS:
                yield ".%s" % name, value


def local_items(frame):
    """A function frame's locals as (name, value) pairs, leaving no copy behind: before Python 3.13
    reading f_locals copies them into a dict the frame keeps, which would hold every local past the
    script's own `del` (3.13's f_locals is a view: nothing to undo). A module's frame: its globals."""
    names = frame.f_locals
    items = list(names.items())
    if sys.version_info < (3, 13) and names is not frame.f_globals:
        names.clear()
    return items


def _walk(roots, arrays, torch, budget_end, main=None, host=None, unreadable=None):
    """Each array's first path from a root (breadth first, so the shortest): id -> (root, path). ``host``:
    what holds host memory beyond the frameworks' arrays (live_arrays.host_array), added to ``arrays`` as
    it is met: numpy arrays are not tracked by the collector, so only a name finds them."""
    owner = {}
    seen = set()
    unreadable = unreadable if unreadable is not None else [0]
    keys = set(value[2] for value in arrays.values())
    frontier = [(root, root, value) for root, value in roots]
    for _ in range(MAX_DEPTH + 1):
        following = []
        for root, path, obj in frontier:
            if time.time() > budget_end:
                raise live_arrays.Budget()
            key = id(obj)
            if key in seen or type(obj) in live_arrays.PROXIES:
                continue
            seen.add(key)
            if host is not None and key not in arrays:
                try:
                    hit = host(obj)
                except Exception:  # an object whose size cannot be read (a proxy, a broken buffer): skipped, counted
                    hit = None
                    unreadable[0] += 1
                if hit is not None:  # a view met after its base adds nothing to the total
                    known = hit[0] in keys
                    keys.add(hit[0])
                    arrays[key] = (obj, 0 if known else hit[1], hit[0], hit[2])
            if key in arrays:
                owner.setdefault(key, (root, path))
                grad = _grad(obj)
                if grad is not None and id(grad) in arrays:
                    owner.setdefault(id(grad), (root, path + ".grad"))
                continue
            if _is(obj, SKIPPED) and not _is(obj, types.FunctionType):
                continue  # a module's namespace is the framework's, not the script's; a function's closure is
            try:
                following.extend((root, path + suffix, child) for suffix, child in _children(obj, torch, main))
            except Exception:
                continue
        frontier = following
        if not frontier:
            break
    return owner


def _grad(tensor):
    """A torch leaf tensor's gradient (its own allocation, held through the parameter), else None;
    read on leaves only: torch warns on a non-leaf's .grad, which would change the script's output."""
    try:
        return tensor.grad if getattr(tensor, "is_leaf", False) is True else None
    except Exception:
        return None


def _roots(frame, main):
    """The names a script reaches its objects by: the locals of its frames, innermost first, then its globals."""
    roots = []
    while frame is not None:
        if frame.f_globals is main.__dict__ or frame.f_code.co_filename == getattr(main, "__file__", None):
            if frame.f_globals is not main.__dict__ or frame.f_code.co_name != "<module>":
                roots.extend(("%s() local %s" % (frame.f_code.co_name, n), v) for n, v in local_items(frame))
        frame = frame.f_back
    roots.extend((n, v) for n, v in list(main.__dict__.items()) if not n.startswith("__"))
    return roots


def find(frame, main, on_gpu=None, adjust=None):
    """The holders of the framework's live memory at this point of the script, or None where there
    is nothing to find: {"holders": [...], "unaccounted": bytes, ...}. ``on_gpu``: the frameworks
    counting live GPU memory here; none (a CPU host, or a script that left the GPU alone): their
    CPU arrays, host memory, where they come to MIN_BYTES. ``adjust``: the roots as a notebook's
    user knows them (notebook.history_roots)."""
    torch = sys.modules.get("torch")
    began = time.time()
    end = began + BUDGET_S
    result = {"budget_s": BUDGET_S, "device": "gpu" if on_gpu is None or on_gpu else "cpu"}
    arrays = {}
    unreadable = [0]  # objects met whose size could not be read: skipped, and said how many
    operations = keras_graph.operations() if "tensorflow" in sys.modules else None
    piled = (operations or 0) >= KERAS_PILED  # models built without clear_session(): said even with small arrays
    try:
        arrays = live_arrays.live_arrays(end, () if on_gpu is None else on_gpu)
        if any(key[0] == "tfsession" and key[-1] == "GPU" for _, _, key, _ in arrays.values()):
            result["device"] = "gpu"  # a TF1 session counts no memory TF reports, yet holds GPU memory
        host = None
        if result["device"] == "cpu":  # host memory: numpy, pandas and plain buffers hold it too
            host = live_arrays.host_array(sys.modules.get("numpy"), sys.modules.get("pandas"))
        elif sum(size for _, size, _, _ in arrays.values()) < 1 and not piled:
            return None
        roots = _roots(frame, main)
        owner = _walk(adjust(roots) if adjust else roots, arrays, torch, end, main, host, unreadable)
        if result["device"] == "cpu" and sum(_sizes(arrays).values()) < MIN_BYTES and not piled:
            return None
    except live_arrays.Budget:
        result["budget_hit"] = True
        owner = {}
    groups = {}
    # An allocation counts once, for the first name that reaches any array viewing it (a jitted
    # function's own Array over a global's buffer is the global's memory, not unaccounted memory).
    sizes = _sizes(arrays)
    credited = set()
    for key, (tensor, _, storage, kind) in arrays.items():
        if key not in owner:
            continue
        size = 0 if storage in credited else sizes[storage]
        credited.add(storage)
        root, path = owner[key]
        group = groups.setdefault(root, {"owner": root, "bytes": 0, "arrays": 0, "graph": 0, "paths": [], "kind": "",
                                         "framework": kind})
        group["bytes"] += size
        group["arrays"] += 1
        group["graph"] += 1 if getattr(tensor, "grad_fn", None) is not None else 0
        if len(group["paths"]) < 3:
            group["paths"].append(path)
        group.setdefault("_tensors", []).append(tensor)
    for key, (tensor, _, storage, kind) in arrays.items():  # unreached: kept by a cycle through its own graph?
        why = None if key in owner or storage in credited or kind != "torch" else cycles.explained(tensor)
        if why is not None:
            where, visible, line = why
            group = groups.setdefault(where, {"owner": where, "bytes": 0, "arrays": 0, "graph": 0, "paths": [],
                                              "kind": "reference cycle", "framework": kind,
                                              "cycle": "collectable" if visible else "gc-proof", "cycle_at": line})
            group["bytes"] += sizes[storage]
            group["arrays"] += 1
            credited.add(storage)
            group.setdefault("_tensors", []).append(tensor)
    unowned = dict((storage, size) for storage, size in sizes.items() if storage not in credited and size)
    owned = credited
    graphs = 0  # bytes graphs keep that no Python tensor wraps: seen by nothing above
    for group in groups.values():
        kept, fresh, readable = 0, 0, True
        try:
            if group["graph"]:
                kept, fresh, readable = autograd.saved_bytes(group["_tensors"], owned, unowned, end)
        except live_arrays.Budget:
            result["budget_hit"] = True
        group["graph_bytes"] = kept
        if not readable:
            group["graph_unread"] = True  # named whatever its size: its graphs' memory is not in its bytes
        group["bytes"] += kept
        graphs += fresh
    unaccounted = sum(unowned.values())
    held = sorted(groups.values(), key=lambda g: -g["bytes"])
    for group in held:
        group["shapes"] = autograd.describe(group.pop("_tensors"))
        if group.get("cycle"):
            continue
        group["kind"] = _kind(main, group["owner"])
        site = made_at.made_at(main, group["owner"])
        if site:
            group["made_at"] = site
        grows = made_at.grows_at(main, group["owner"])
        if grows:
            group["grows_at"] = grows
    if unreadable[0]:
        result["unreadable"] = unreadable[0]
    if operations:
        result["keras_graph_ops"] = operations  # models built and never cleared keep their layers there
    result.update(holders=[g for g in held if g["bytes"] >= MIN_BYTES or g.get("graph_unread")][:TOP],
                  total=sum(size for _, size, _, _ in arrays.values()) + graphs, unaccounted=unaccounted,
                  seconds=round(time.time() - began, 3),
                  framework=", ".join(sorted(set(name for _, _, _, name in arrays.values()))))
    return result  # its names, counts and bytes: no array of the script's is referenced from here on


def _sizes(arrays):
    """Each allocation the arrays view, once, by the largest array over it: storage key -> bytes."""
    sizes = {}
    for _, size, key, _ in arrays.values():
        sizes[key] = max(sizes.get(key, 0), size)
    return sizes


def _kind(main, root):
    """What the holder's root is: 'list of 100', 'Adam', 'Linear', 'ValueError' (for the fix's words)."""
    value = main.__dict__.get(root)
    if value is None:
        return ""
    if _is(value, (list, tuple, dict, set)):
        return "%s of %d" % (type(value).__name__, len(value))
    return type(value).__name__
