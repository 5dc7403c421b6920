"""How much of what the script's process keeps is the C allocator's free memory, told apart from live objects.

Runs inside the environment: stdlib only, Python 2.7 and 3.5+. glibc keeps memory a program freed in its heap
for the next allocation (RSS does not fall); ``malloc_trim(0)`` gives it back to the OS. Called once, after the
script's ``end`` was measured, so no line of the script reads memory after it: the process's own RSS is read
before and after (the counter the host reads from outside), and the difference is what was free heap. Where
the C library is not glibc (musl has no malloc_trim), nothing is said.
"""
import time


def _rss():
    with open("/proc/self/statm") as handle:
        pages = int(handle.read().split()[1])
    import resource
    return pages * resource.getpagesize()


def _malloc_trim():
    """glibc's malloc_trim, or None (musl, macOS)."""
    try:
        import ctypes
        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError, IOError, ValueError):
        return None


def trimmed_rss():
    """The process's RSS once malloc_trim(0) gave the free heap back, or None where there is none."""
    malloc_trim = _malloc_trim()
    if malloc_trim is None:
        return None
    malloc_trim(0)
    return _rss()


def trim():
    """{"before": bytes, "after": bytes, "seconds": s} around one malloc_trim(0), or None where there is none."""
    try:
        before = _rss()
    except (OSError, IOError, ValueError):
        return None
    began = time.time()
    after = trimmed_rss()
    if after is None:
        return None
    return {"before": before, "after": after, "seconds": round(time.time() - began, 3)}
