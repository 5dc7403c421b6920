"""The framework's own view of its GPU memory, and the facts of the running environment.

Runs inside the environment: stdlib only, Python 2.7 and 3.5+. It looks only at frameworks
the scenario has already imported (sys.modules) and never initialises a device: asking TF or
JAX for a device would itself allocate memory and spoil the reading. Every probe is guarded;
a missing API gives no entry, never an exception.

A view entry is {"in_use": bytes the framework counts as live, "reserved": bytes its allocator
holds from the driver} with None where the version does not say.
"""
import platform
import sys


def _module(name):
    return sys.modules.get(name)


def torch_cuda_started(torch):
    """Whether the script has started CUDA in this process. Only is_initialized(): is_available()
    would count devices through the CUDA runtime and so start it (a fork child of a script that
    never touched the GPU could then no longer use it)."""
    cuda = getattr(torch, "cuda", None)
    try:
        started = getattr(cuda, "is_initialized", None)
        if started is not None:
            return bool(started())
        return bool(getattr(cuda, "_initialized", False))  # torch 1.0: the flag is_initialized() reads from 1.1
    except Exception:
        return False


def _torch_view():
    torch = _module("torch")
    if torch is None or not torch_cuda_started(torch):
        return None
    cuda = torch.cuda
    try:  # every GPU the script sees (its allocator keeps one pool per device); counted once CUDA started
        devices = list(range(int(cuda.device_count()))) or [None]
        in_use = [int(cuda.memory_allocated(d)) for d in devices]
        pool = getattr(cuda, "memory_reserved", None) or cuda.memory_cached  # memory_cached before torch 1.4
        reserved = [int(pool(d)) for d in devices]
        view = {"in_use": sum(in_use), "reserved": sum(reserved)}
    except Exception:
        return None
    if len(devices) > 1:  # per device: a GPU the process holds memory on while torch keeps nothing there
        view["per_device"] = dict((str(d), n) for d, n in zip(devices, in_use))
        view["per_device_reserved"] = dict((str(d), n) for d, n in zip(devices, reserved))
    try:  # what pins a pool empty_cache() cannot return: segments holding live blocks
        stats = [cuda.memory_stats(d) for d in devices]
        view["segments"] = sum(int(st.get("segment.all.current", 0)) for st in stats)
        view["inactive_split"] = sum(int(st.get("inactive_split_bytes.all.current", 0)) for st in stats)
    except Exception:
        pass
    return view


def _tf_context_initialized(tf):
    # Private, guarded: asking a fresh TF for devices would initialise the GPU (and, by
    # default, take nearly all its memory). Only report once the scenario has done so itself.
    try:
        from tensorflow.python.eager import context
        return context.context()._context_handle is not None
    except Exception:
        return False


def _tf_view():
    tf = _module("tensorflow")
    if tf is None:
        return None
    try:
        get_info = tf.config.experimental.get_memory_info  # TF >= 2.5
    except AttributeError:
        return None
    if not _tf_context_initialized(tf):
        return None
    try:
        if not tf.config.list_logical_devices("GPU"):
            return None
        info = get_info("GPU:0")
        return {"in_use": int(info["current"]), "reserved": None, "peak": int(info["peak"])}
    except Exception:
        return None


def _jax_view():
    if _module("jax") is None:
        return None
    try:
        from jax._src import xla_bridge
        if not getattr(xla_bridge, "_backends", None):
            return None  # backends not initialised yet: asking would preallocate
        import jax
        device = jax.devices()[0]
        if device.platform != "gpu":
            return None
        stats = device.memory_stats() or {}
        return {"in_use": stats.get("bytes_in_use"), "reserved": stats.get("bytes_reserved") or stats.get("pool_bytes")}
    except Exception:
        return None


def cuda_in_process():
    """Whether CUDA's driver is open in this process (its device files are mapped), read from
    /proc alone: a framework's own query could be the first CUDA call, after which a fork child
    can no longer use the GPU."""
    try:
        with open("/proc/self/maps") as maps:
            return any("/dev/nvidia" in line for line in maps)
    except (IOError, OSError):
        return False


def _cupy_view():
    cupy = _module("cupy")
    if cupy is None or not cuda_in_process():
        return None
    try:
        pool = cupy.get_default_memory_pool()
        return {"in_use": int(pool.used_bytes()), "reserved": int(pool.total_bytes())}
    except Exception:
        return None


PROBES = (("torch", _torch_view), ("tensorflow", _tf_view), ("jax", _jax_view), ("cupy", _cupy_view))


def collect():
    """The view of every imported framework that has one: {framework: {...}}."""
    views = {}
    for name, probe in PROBES:
        view = probe()
        if view is not None:
            views[name] = view
    return views


def _version(name):
    module = _module(name)
    return getattr(module, "__version__", None) if module is not None else None


def _torch_facts(facts):
    torch = _module("torch")
    if torch is None:
        return
    version = getattr(torch, "version", None)
    facts["cuda"] = getattr(version, "cuda", None)
    try:
        facts["cudnn"] = torch.backends.cudnn.version()
        built = getattr(torch.backends.cuda, "is_built", None)  # torch >= 1.2; before, a CPU build has no CUDA version
        if not (built() if built is not None else facts["cuda"]):
            facts.setdefault("gpu_devices", {})["torch"] = 0  # a CPU build: it cannot have used a GPU
        elif torch_cuda_started(torch):  # never start CUDA here: only what the script started
            facts.setdefault("gpu_devices", {})["torch"] = torch.cuda.device_count()
            facts["gpu_seen"] = torch.cuda.get_device_name(0)
    except Exception:
        pass


def _tf_facts(facts):
    tf = _module("tensorflow")
    if tf is None:
        return
    try:
        build = tf.sysconfig.get_build_info()  # TF >= 2.3
        facts["cuda"] = build.get("cuda_version")
        facts["cudnn"] = build.get("cudnn_version")
    except Exception:
        try:  # 1.14-2.2 name the major alone ("10")
            from tensorflow.python.platform import build_info
            facts["cuda"] = getattr(build_info, "cuda_version_number", None)
            facts["cudnn"] = getattr(build_info, "cudnn_version_number", None)
        except Exception:
            pass
    try:
        facts["built_with_cuda"] = bool(tf.test.is_built_with_cuda())
    except Exception:
        pass
    if not _tf_context_initialized(tf):
        return  # listing devices would start TF's GPU platform, which the script never did
    try:
        # A CUDA build that could not load its GPU libraries lists none ("Skipping registering GPU devices").
        facts.setdefault("gpu_devices", {})["tensorflow"] = len(tf.config.list_physical_devices("GPU"))
    except Exception:
        pass


FRAMEWORKS = []  # import names whose versions are recorded: the host's registry, sent in the spec (see know)


def know(names):
    """The frameworks (and what comes with them) this run records, as the host's registry names them."""
    FRAMEWORKS[:] = list(names or ())


def _recorded():
    """Whose versions a cell records: the frameworks, and numpy (what every one of them runs on)."""
    return FRAMEWORKS + ["numpy"]


def imported_versions():
    """Versions of the frameworks imported so far, read without touching them (safe from any
    thread, even while the script is still importing one: only the module's own dict is read)."""
    found = {}
    for name in _recorded():
        module = _module(name)
        version = getattr(module, "__dict__", {}).get("__version__") if module is not None else None
        if isinstance(version, str):
            found[name] = version
    return found


def facts():
    """What this environment really ran: Python, the frameworks imported, CUDA where known."""
    result = {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "frameworks": {},
    }
    for name in _recorded():
        version = _version(name)
        if version is not None:
            result["frameworks"][name] = str(version)
    _torch_facts(result)
    _tf_facts(result)
    wheels = cuda_wheels(sys.path)
    if wheels:
        result["cuda_wheels"] = wheels
    return result


CUDA_WHEEL = r"^(nvidia_[a-z0-9_]+|cuda_toolkit|cuda_bindings)-([^-]+)\.dist-info$"


def cuda_wheels(paths):
    """The pip-installed CUDA libraries (nvidia-cublas-cu12 12.9.3.13, ...) on these paths, read
    from their dist-info folders' names: which cuDNN or cuBLAS a column really ran, where the
    framework itself reports only the CUDA it was built with. Imported here, after the script: the
    script's first line sees no module the agent brought."""
    import os
    import re

    pattern = re.compile(CUDA_WHEEL, re.IGNORECASE)
    found = {}
    for folder in paths:
        try:
            names = os.listdir(folder or ".")
        except (OSError, TypeError):
            continue
        for name in names:
            match = pattern.match(name)
            if match:
                found.setdefault(match.group(1).lower().replace("_", "-"), match.group(2))
    return found
