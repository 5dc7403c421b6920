"""The frameworks' live arrays in the script's process, each with its bytes and the allocation it views.

Runs inside the environment, in the script's process: stdlib only, Python 2.7 and 3.5+. Torch's,
CuPy's and TensorFlow's arrays (eager tensors and variables; a TF1 session, whose graph's variables
live in it) are found among the objects the collector tracks (no ``gc.collect()``), JAX's in its
own list of live arrays; an allocation two arrays view counts once. Used by holders.py.
"""
import gc
import sys
import time
import weakref
from itertools import compress

import framework_view  # beside this file

PROXIES = (weakref.ProxyType, weakref.CallableProxyType)  # touching a dead one raises: never touched


class Budget(Exception):
    """The time given to the search ran out."""


def storage_of(tensor):
    """The allocation a tensor views and its bytes (a storage without ``nbytes()``, as torch 1.0's: its element
    count times the element's size; before 2.0 no ``untyped_storage()``)."""
    storage = tensor.untyped_storage() if hasattr(tensor, "untyped_storage") else tensor.storage()
    size = storage.nbytes() if hasattr(storage, "nbytes") else storage.size() * storage.element_size()
    return (tensor.device.type, tensor.device.index, storage.data_ptr()), int(size)


def _torch_array(torch, cuda):
    """The classes of torch's arrays, and a tensor's (storage key, bytes) where the script's memory is measured
    (CUDA once CUDA started), or None. Meta tensors hold no memory; torch 1.0's tensors have no ``is_meta``."""
    def one(obj):
        if not issubclass(type(obj), torch.Tensor) or bool(obj.is_cuda) != cuda or getattr(obj, "is_meta", False):
            return None
        return storage_of(obj)
    return (torch.Tensor,), one


def _cupy_array(cupy):
    """The class of CuPy's arrays, and an array's (key, bytes) of the allocation it views, or None."""
    def one(obj):
        if not issubclass(type(obj), cupy.ndarray):
            return None
        mem = obj.data.mem
        return ("cuda", int(obj.device.id), int(mem.ptr)), int(mem.size)
    return (cupy.ndarray,), one


def _tf_size(obj):
    """A TensorFlow value's bytes from its dtype and shape, or None (resource handles, unknown shapes)."""
    try:
        count = obj.shape.num_elements()
        size = obj.dtype.size
    except Exception:
        return None
    return int(count) * int(size) if count is not None and size else None


def _tf_array(tf, gpu):
    """The classes of TensorFlow's eager tensors and variables, and one's (key, bytes) on the measured device
    (a GPU where TF counts GPU memory, else the CPU: host memory), or None. Keyed by the object: TF does not
    show which buffer a tensor views (a reshape's result shares its input's, and counts again)."""
    variable, tensor = getattr(tf, "Variable", None), getattr(tf, "Tensor", None)
    wanted = "GPU" if gpu else "CPU"

    def one(obj):
        if variable is not None and issubclass(type(obj), variable):
            kind = "tfvar"
        elif tensor is not None and issubclass(type(obj), tensor) and type(obj).__name__ == "EagerTensor":
            kind = "tf"
        else:
            return None
        device = str(getattr(obj, "device", "") or "")
        if wanted not in device.rsplit("/", 1)[-1].upper():
            return None  # elsewhere, or a graph's (TF1) variable: its memory is in a session
        size = _tf_size(obj)
        return ((kind, id(obj)), size) if size else None
    return tuple(c for c in (variable, tensor) if c is not None), one


def _tf1_session(tf):
    """The class of TF1's sessions, and one's (key, bytes): the variables of its graph live in it until it is
    closed."""
    session = getattr(tf, "Session", None)  # TF 1.x; TF 2.x in graph mode: tf.compat.v1.Session
    if session is None:
        session = getattr(getattr(getattr(tf, "compat", None), "v1", None), "Session", None)

    def one(obj):
        if session is None or not issubclass(type(obj), session) or getattr(obj, "_closed", True):
            return None
        total = 0
        for var in obj.graph.get_collection("variables"):
            total += _tf_size(var) or 0
        try:  # where its variables live: a GPU when the session has one (TF places them there)
            gpu = any(d.device_type == "GPU" for d in obj.list_devices())
        except Exception:
            gpu = False
        return (("tfsession", id(obj), "GPU" if gpu else "CPU"), total) if total else None
    return (session,) if session is not None else (), one


def _of_classes(objects, classes):
    """The objects whose type is one of ``classes`` or a subclass: told apart by type, once per type, and picked
    by ``map`` and ``compress`` in C: 25 ms for the 160,000 objects the collector tracks with torch imported, where
    asking each in a Python loop took 70-80 ms, at every cleanup line a leak script's loop reaches."""
    objects = list(objects)
    types = list(map(type, objects))
    wanted = set(kind for kind in set(types) if kind not in PROXIES and _subclass(kind, classes))
    return list(compress(objects, map(wanted.__contains__, types))) if wanted else []


def _subclass(kind, classes):
    try:  # a class's metaclass decides (never an object's own code); one that raises is none of them
        return issubclass(kind, classes)
    except Exception:
        return False


def _scan(kinds, budget_end, among=None):
    """The live arrays of every framework in ``kinds`` ({name: (classes, test)}) among the objects the collector
    tracks (or ``among``): id -> (array, bytes, storage key, framework); an allocation seen again counts 0 bytes."""
    found = {}
    seen_storage = set()
    classes = tuple(c for wanted, _ in kinds.values() for c in wanted)
    if not classes:
        return found
    candidates = _of_classes(gc.get_objects() if among is None else among, classes)
    tests = [(name, test) for name, (_, test) in kinds.items()]
    for index, obj in enumerate(candidates):
        if index % 4096 == 0 and time.time() > budget_end:
            raise Budget()
        for name, test in tests:
            try:
                hit = test(obj)
            except Exception:
                continue
            if hit is not None:
                key, size = hit
                found[id(obj)] = (obj, 0 if key in seen_storage else size, key, name)
                seen_storage.add(key)
                break
    return found


def _jax_key(array):
    """The device allocation a JAX array views. Two live arrays can view one: a jitted function that
    reads a global array keeps its own Array over the global's buffer (its captured constant), and
    jax.live_arrays() lists both."""
    try:
        return ("jax", int(array.unsafe_buffer_pointer()))
    except Exception:
        pass
    try:  # sharded over several devices: its shards' buffers
        return ("jax",) + tuple(sorted(int(s.data.unsafe_buffer_pointer()) for s in array.addressable_shards))
    except Exception:
        return ("jax", id(array))


def _jax_arrays(jax, found):
    """JAX keeps a list of its live arrays (jax.live_arrays()): no scan needed. Added to ``found``;
    an allocation already seen counts 0 bytes."""
    seen = set(key for _, _, key, _ in found.values())
    for array in jax.live_arrays():
        try:
            if array.is_deleted():
                continue
            key = _jax_key(array)
            found[id(array)] = (array, 0 if key in seen else int(array.nbytes), key, "jax")
            seen.add(key)
        except Exception:
            continue


def live_arrays(budget_end, on_gpu=(), torch_cuda=None, among=None):
    """Every imported framework's live arrays on the measured device: id -> (array, bytes, key, framework).
    ``on_gpu``: the frameworks that count GPU memory here; any other's arrays are its CPU ones. ``torch_cuda``:
    whether the script started CUDA, where the caller knows better than torch (a forked copy: torch says no).
    ``among``: only these objects (JAX's own list, filtered by them), instead of every object the collector tracks."""
    kinds = {}
    torch, cupy, jax, tf = (sys.modules.get(name) for name in ("torch", "cupy", "jax", "tensorflow"))
    if torch is not None and getattr(torch, "Tensor", None) is not None:
        cuda = framework_view.torch_cuda_started(torch) if torch_cuda is None else torch_cuda
        kinds["torch"] = _torch_array(torch, cuda)
    if cupy is not None and getattr(cupy, "ndarray", None) is not None:
        kinds["cupy"] = _cupy_array(cupy)
    if tf is not None and getattr(tf, "Tensor", None) is not None:
        eager = getattr(tf, "executing_eagerly", None)
        if eager is not None and eager():
            kinds["tensorflow"] = _tf_array(tf, "tensorflow" in on_gpu)
        else:
            kinds["tensorflow"] = _tf1_session(tf)
    found = _scan(kinds, budget_end, among) if kinds else {}
    if jax is not None and getattr(jax, "live_arrays", None) is not None:
        _jax_arrays(jax, found)
    if among is not None:
        wanted = set(id(obj) for obj in among)
        found = dict((key, value) for key, value in found.items() if key in wanted)
    return found


def host_array(numpy, pandas):
    """A test for what holds host memory outside the frameworks' own arrays, met on the way from a name:
    a numpy array (its allocation: a view counts once, with its base, under the key a CPU torch tensor
    over the same memory has), a pandas DataFrame or Series, bytes, a bytearray, a memoryview. None
    where the object is none of these: (key, bytes, kind) otherwise."""
    ndarray = getattr(numpy, "ndarray", None) if numpy is not None else None
    frames = tuple(getattr(pandas, n) for n in ("DataFrame", "Series") if pandas is not None and hasattr(pandas, n))

    def one(obj):
        kind = type(obj)
        if ndarray is not None and issubclass(kind, ndarray):
            root = obj
            while isinstance(getattr(root, "base", None), ndarray):
                root = root.base
            return ("cpu", None, int(root.__array_interface__["data"][0])), int(root.nbytes), "numpy"
        if frames and issubclass(kind, frames):
            used = obj.memory_usage(index=True, deep=False)
            return ("pandas", id(obj)), int(used.sum() if hasattr(used, "sum") else used), "pandas"
        if kind in (bytes, bytearray):
            return ("bytes", id(obj)), len(obj), kind.__name__
        if kind is memoryview:
            return ("bytes", id(obj.obj)), int(obj.nbytes), "memoryview"
        return None
    return one
