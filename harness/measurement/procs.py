"""Host processes: the process tree of a cell and its resident memory, read from /proc.

NVML reports host-namespace PIDs, and a container's processes are ordinary host processes,
so one function finds a cell's PIDs for every backend: the root PID and its descendants.
Linux only, like the GPU hosts this tool measures.
"""
from __future__ import annotations

import os
import time
from collections.abc import Iterable

PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


def _parent_map() -> dict[int, int]:
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue  # the process ended while we looked
        # The command name may hold spaces and parentheses: fields start after the last ')'.
        fields = stat[stat.rfind(b")") + 2 :].split()
        parents[int(entry)] = int(fields[1])
    return parents


def _children(pid: int) -> list[int] | None:
    """The children of ``pid``, from its threads' ``children`` files (Linux 3.5+, CONFIG_PROC_CHILDREN): a few
    opens where a scan of /proc opens every process on the host. [] where it has ended; None where the kernel
    has no such file."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    found: list[int] = []
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children", "rb") as handle:
                found.extend(int(child) for child in handle.read().split())
        except FileNotFoundError:
            if not os.path.exists(f"/proc/{pid}/task/{task}"):
                continue  # the thread ended while we looked
            return None
        except OSError:
            continue
    return found


def descendants(root: int) -> set[int]:
    """``root`` and every live process below it (empty when ``root`` has ended), walked down from ``root`` where
    the kernel lists each process's children, else from a scan of every process's parent."""
    if not os.path.exists(f"/proc/{root}"):
        return set()
    found, stack = set(), [root]
    while stack:
        pid = stack.pop()
        if pid in found:
            continue
        children = _children(pid)
        if children is None:
            return _descendants_by_scan(root)
        found.add(pid)
        stack.extend(children)
    return found


def _descendants_by_scan(root: int) -> set[int]:
    parents = _parent_map()
    if root not in parents:
        return set()
    children: dict[int, list[int]] = {}
    for pid, ppid in parents.items():
        children.setdefault(ppid, []).append(pid)
    found, stack = set(), [root]
    while stack:
        pid = stack.pop()
        if pid in found:
            continue
        found.add(pid)
        stack.extend(children.get(pid, ()))
    return found


def _rss(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/statm", "rb") as handle:
            return int(handle.read().split()[1]) * PAGE_SIZE
    except (OSError, IndexError, ValueError):
        return None


def _uss(pid: int) -> int | None:
    """What only ``pid`` maps (its private pages, clean and dirty): what it adds to the host's memory
    beside the processes it shares pages with; its RSS where smaps_rollup cannot be read."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as handle:
            rollup = handle.read()
    except OSError:
        return _rss(pid)
    private = [int(line.split()[1]) * 1024 for line in rollup.splitlines() if line.startswith(b"Private_")]
    return sum(private) if private else _rss(pid)


def peak_rss(pids: Iterable[int]) -> int | None:
    """The highest resident set any of the script's own processes (those whose parent is not among
    ``pids``) has had since it started (the kernel's VmHWM): a peak too brief for any sampler to see,
    and never above the peak of their sum. None when none could be read."""
    found = set(pids)
    peaks = [v for pid in found if parent(pid) not in found and (v := _status_kib(pid, b"VmHWM:")) is not None]
    return max(peaks) * 1024 if peaks else None


def _status_kib(pid: int, field: bytes) -> int | None:
    try:
        with open(f"/proc/{pid}/status", "rb") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    return next((int(line.split()[1]) for line in lines if line.startswith(field)), None)


def parent(pid: int) -> int | None:
    """``pid``'s parent, or None once it has ended."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
        return int(stat[stat.rfind(b")") + 2 :].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def rss_bytes(pids: Iterable[int]) -> int | None:
    """Host memory of a tree of processes, each page counted once: the resident set of each process
    whose parent is not among ``pids`` (the script's own), and only the private pages (USS) of the
    processes below it, whose other pages are the parent's, shared since the fork (two forked
    compile workers of a 1 GiB process add their own pages, not 2 GiB more). One process: its RSS,
    as ever. None when none of them could be read."""
    return rss_split(pids)[0]


def rss_split(pids: Iterable[int]) -> tuple[int | None, int | None]:
    """``rss_bytes`` and the part of it that is the child processes' own pages (None without a child)."""
    found = set(pids)
    total, children, seen = 0, None, False
    for pid in found:
        child = parent(pid) in found
        value = _uss(pid) if child else _rss(pid)
        if value is not None:
            total, seen = total + value, True
            if child:
                children = (children or 0) + value
    return (total if seen else None), children


def alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2 : stat.rfind(b")") + 3] != b"Z"


def command_line(pid: int, limit: int = 200) -> str:
    """``pid``'s command line as one string (``?`` once it has ended)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            text = handle.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
    except OSError:
        return "?"
    return text[:limit] + ("..." if len(text) > limit else "")


def host_pid(candidates: Iterable[int], namespace_pid: int) -> int | None:
    """The host PID, among ``candidates``, of the process that calls itself ``namespace_pid`` in its
    own PID namespace (a container's); on the host both are the same."""
    for pid in candidates:
        try:
            with open(f"/proc/{pid}/status", "rb") as handle:
                for line in handle:
                    if line.startswith(b"NSpid:"):
                        if int(line.split()[-1]) == namespace_pid:
                            return pid
                        break
        except (OSError, ValueError):
            continue
    return None


# Helpers Python starts for a script that end by themselves once the script has (multiprocessing's
# resource tracker, its forkserver, Python < 3.8's semaphore tracker): never "left running".
SELF_ENDING = ("multiprocessing.resource_tracker", "multiprocessing.semaphore_tracker", "multiprocessing.forkserver")


def let_helpers_end(pids: set[int], script: int | None, seconds: float = 2.0) -> None:
    """Give such helpers of a script that has ended up to ``seconds`` to end, as they do bare."""
    if script is not None and alive(script):
        return
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not any(alive(p) and _ending(command_line(p)) for p in pids):
            return
        time.sleep(0.05)


def _ending(command: str) -> bool:
    """A helper that ends by itself once the script has, or a process already on its way out (its
    command line is gone with its memory before it turns zombie)."""
    return not command or any(helper in command for helper in SELF_ENDING)

