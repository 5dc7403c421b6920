"""What of the host memory a script's process keeps at `end` is unreachable reference cycles that Python's
garbage collector has not yet freed: counted in a forked copy, so the script's own objects are never collected.

Runs inside the environment: stdlib only, Python 2.7 and 3.5+. Objects in a reference cycle are freed only when
the collector's generation that holds them runs, and the oldest runs rarely in a process with many long-lived
objects: TF 2.2's ``predict()`` leaves about 700 such objects a call (its tf.data function graphs), and RSS grows
until a full collection. The copy asks the collector to find them with DEBUG_SAVEALL (nothing freed, no finalizer
run) and tallies them by type; then it frees them and reads its own RSS around that, after ``malloc_trim(0)`` on
both sides so the C allocator's free heap (heap.py) is not counted twice. The copy writes nowhere the script
does (its stdout and stderr go to /dev/null, no core file, no atexit), and is killed past a time limit; the
script's process only waits for it. Where fork is missing, nothing is said.
"""
import json
import os
import sys
import time
import warnings

import framework_view
import heap
import live_arrays

_EXIT = os._exit  # the real one: the script's fork hooks wrap it to report a child's exit (as_bare.py)
BUDGET_S = 20.0  # the copy's time: a finalizer that waits on a thread the fork did not copy stops here
TOP = 6  # the types said: by bytes, and the libraries' own by count (what made the cycles: dicts say nothing)
STDLIB = ("builtins", "__builtin__", "collections", "threading", "weakref", "functools", "_thread", "thread", "abc",
          "typing", "types", "enum", "_io", "io", "re", "_collections_abc")


def _tally(objects):
    """{"objects": n, "bytes": sum of sys.getsizeof, "types": [[type, count, bytes], ...] by bytes}: the cycles'
    objects and what they hold that the collector does not track (a bytearray, an array's buffer), each once."""
    import gc
    by_type, total, unreadable, seen = {}, 0, 0, set(id(obj) for obj in objects)
    held = []
    for obj in objects:
        for ref in gc.get_referents(obj):
            if not gc.is_tracked(ref) and id(ref) not in seen:
                seen.add(id(ref))
                held.append(ref)
    for obj in objects + held:
        kind = type(obj)
        name = "%s.%s" % (getattr(kind, "__module__", "?"), getattr(kind, "__qualname__", kind.__name__))
        try:
            size = sys.getsizeof(obj)
        except Exception:  # a broken __sizeof__: counted, not sized
            size, unreadable = 0, unreadable + 1
        count, nbytes = by_type.get(name, (0, 0))
        by_type[name] = (count + 1, nbytes + size)
        total += size
    top = sorted(by_type.items(), key=lambda item: -item[1][1])[:TOP]
    own = sorted(((n, v) for n, v in by_type.items() if n.split(".")[0] not in STDLIB), key=lambda item: -item[1][0])
    return {"objects": len(objects), "bytes": total, "unreadable": unreadable,
            "types": [[name, count, nbytes] for name, (count, nbytes) in top],
            "libraries": [[name, count, nbytes] for name, (count, nbytes) in own[:TOP]]}


def _arrays_in(found, on_gpu, torch_cuda):
    """{framework: bytes} of the frameworks' arrays among ``found`` (live_arrays.py's test: on the measured device,
    an allocation counted once): GPU memory the framework counts as in use that only these cycles keep."""
    ids = set(id(obj) for obj in found)
    out = {}
    try:
        deadline = time.time() + BUDGET_S / 4
        if not live_arrays.live_arrays(deadline, on_gpu, torch_cuda, among=found):  # mostly: no array in a cycle,
            return out  # and no need to look at every object (each allocation counted once, as the full look does)
        arrays = live_arrays.live_arrays(deadline, on_gpu, torch_cuda)
    except Exception:  # the search's time ran out, or a framework's object refused: no figure rather than a wrong one
        return None
    for key, (_, size, _, name) in arrays.items():
        if key in ids and size:
            out[name] = out.get(name, 0) + size
    return out


def _in_copy(write, on_gpu, torch_cuda):
    """The forked copy: census, then what freeing them gives back; each written as one JSON line."""
    import gc
    gc.set_debug(gc.DEBUG_SAVEALL)
    gc.collect()
    found = list(gc.garbage)
    said = _tally(found)
    arrays = _arrays_in(found, on_gpu, torch_cuda)
    if arrays is not None:
        said["arrays"] = arrays
    write(said)
    before = heap.trimmed_rss()
    gc.set_debug(0)
    del gc.garbage[:]
    del found
    gc.collect()
    write({"freed": max(0, before - heap.trimmed_rss()) if before is not None else None})


def _quiet_copy():
    """Nothing the copy does reaches the script's outputs or its folder."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    for fd in (1, 2):
        os.dup2(devnull, fd)
    try:
        import resource
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    except (ImportError, ValueError, OSError):
        pass


def census(on_gpu=()):
    """{"objects", "bytes", "types", "arrays", "freed", "seconds"} of the garbage the collector would find now, or
    None. ``on_gpu``: the frameworks that count GPU memory here (live_arrays.live_arrays)."""
    if not hasattr(os, "fork"):
        return None
    began = time.time()
    torch = sys.modules.get("torch")  # asked before the fork: in the copy, torch says CUDA never started
    torch_cuda = framework_view.torch_cuda_started(torch) if torch is not None else None
    read_end, write_end = os.pipe()
    with warnings.catch_warnings(module=warnings):  # a multi-threaded process's fork warns (Python 3.12, JAX)
        warnings.simplefilter("ignore")
        pid = os.fork()
    if pid == 0:  # the copy
        try:
            os.close(read_end)
            _quiet_copy()
            _in_copy(lambda said: os.write(write_end, (json.dumps(said) + "\n").encode("utf-8")), on_gpu, torch_cuda)
        finally:
            _EXIT(0)
    os.close(write_end)
    said = _read_lines(read_end, began + BUDGET_S)
    _reap(pid)
    if not said:
        return {"stopped": "the copy said nothing in %.0f s" % BUDGET_S, "seconds": round(time.time() - began, 3)}
    found = said[0]
    found["freed"] = said[1].get("freed") if len(said) > 1 else None
    if len(said) < 2:
        found["stopped"] = "freeing them did not end in %.0f s" % BUDGET_S
    found["seconds"] = round(time.time() - began, 3)
    return found


def at_end(counting=(), live=(), search=None, searched=False):
    """heap.trim()'s reading with this census as its "garbage" (taken first: the copy trims its own heap), or
    None where the C library has no malloc_trim. ``counting``: the frameworks whose own count is read here;
    ``live``: those that count memory in use now; ``search``: what holders.find found at `end` where it looked
    (``searched``; None: no array of theirs). Where every count says nothing is in use, or the search found none
    of their arrays at all (a cycle's arrays are among what it looks at; what a count keeps without one, as
    torch's cuBLAS workspace, no cycle keeps), the copy (0.2 s on a CUDA process: its fork and two collections)
    is not made."""
    if live and searched and _no_arrays(search):
        live = ()
    found = census(counting) if live or not counting else None
    trim = heap.trim()
    if trim is not None and found is not None:
        trim["garbage"] = found
    return trim


def _no_arrays(search):
    """Whether the search at `end` looked at every object and found no array of a framework that counts."""
    return search is None or (isinstance(search, dict) and search.get("total") == 0 and not search.get("budget_hit")
            and not search.get("unreadable") and "error" not in search)


def _read_lines(fd, deadline):
    import select
    data = b""
    try:
        while data.count(b"\n") < 2:
            left = deadline - time.time()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                break
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            data += chunk
    finally:
        os.close(fd)
    out = []
    for line in data.decode("utf-8", "replace").splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            break
    return out


def _reap(pid):
    import signal
    try:
        if os.waitpid(pid, os.WNOHANG)[0] == 0:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    except OSError:
        pass
