"""Fill the driver's JIT cache for a library's PTX on all cores, before a framework's first CUDA start.

A build without machine code for the GPU (torch 1.0-1.5 on Hopper: compute_37/50 PTX only) makes its
first process JIT-compile every kernel module of its libraries when CUDA starts (CUDA 9/10 load them
all at once), in one thread: 14 minutes for torch 1.0.1 on an H100; 1.4.0 and 1.5.1 had not started
after 8. The driver caches each module's compiled code by its contents (CUDA_CACHE_PATH, at most
CUDA_CACHE_MAXSIZE), whoever loads it. So the fat binary containers are read out of the libraries
(harness/environments/cuda_code.py) and loaded with cuModuleLoadData by --jobs processes, each with its
own context; the framework's own start then finds them compiled (torch 1.4.0 on an H200's 16 cores:
4 minutes of this, then a first start of 60.5 s). Lab tooling, not product.

    python3 ptx_prewarm.py [--jobs N] [--arch 90] LIBRARY...

Prints per library the containers with PTX and no SASS for --arch, how many compiled, failed (with
CUDA's code) or were already cached, how many killed the worker that loaded them (some do: seen with
torch 1.4.0 and 1.5.1; they are left to the framework's own start), and the wall time.
"""
from __future__ import annotations

import argparse
import ctypes
import hashlib
import multiprocessing
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from harness.environments.cuda_code import containers  # noqa: E402

_cuda = None


def _context() -> None:
    """One CUDA context per worker (a worker starts after the fork: the parent never touches CUDA)."""
    global _cuda
    _cuda = ctypes.CDLL("libcuda.so.1")
    device, ctx = ctypes.c_int(), ctypes.c_void_p()
    for call, args in (("cuInit", (0,)), ("cuDeviceGet", (ctypes.byref(device), 0)),
                       ("cuCtxCreate_v2", (ctypes.byref(ctx), 0, device))):
        rc = getattr(_cuda, call)(*args)
        if rc:
            raise SystemExit(f"{call} failed: CUDA error {rc}")


def _load(image: bytes) -> tuple[int, float]:
    """cuModuleLoadData of one container: CUDA's code (0: loaded, compiled or from the cache) and seconds."""
    assert _cuda is not None
    module = ctypes.c_void_p()
    started = time.perf_counter()
    rc = _cuda.cuModuleLoadData(ctypes.byref(module), ctypes.c_char_p(image))
    took = time.perf_counter() - started
    if rc == 0:
        _cuda.cuModuleUnload(module)
    return int(rc), took


def jit_only(path: Path, arch: int) -> list[bytes]:
    """The distinct containers of ``path`` that the GPU runs only by JIT: PTX, and no SASS for ``arch``."""
    data = path.read_bytes()
    seen: dict[str, bytes] = {}
    for start, end, (sass, ptx) in containers(data):
        if ptx and arch not in sass and min(ptx) <= arch:
            seen.setdefault(hashlib.sha1(data[start:end]).hexdigest(), data[start:end])
    return list(seen.values())


def _worker(images: list[bytes], tasks: Any, said: Any) -> None:
    """Load the images the parent hands out, saying which one it starts before it starts it: a load that
    kills the process is then known by its index."""
    _context()
    while (i := tasks.get()) is not None:
        said.put(("start", i, os.getpid(), 0, 0.0))
        rc, took = _load(images[i])
        said.put(("done", i, os.getpid(), rc, took))


def compile_all(images: list[bytes], jobs: int) -> tuple[list[tuple[int, float]], int]:
    """Every image loaded once by ``jobs`` worker processes: CUDA's code and seconds for each, and how many
    killed the worker that loaded them (left to the framework's own start; a new worker takes its place).
    Seen on an H200 with torch 1.4.0 and 1.5.1: some loads end their process, and a pool that loses a worker
    waits for ever (multiprocessing.Pool) or fails every pending load with it (concurrent.futures)."""
    fork = multiprocessing.get_context("fork")
    # said: written at once (no feeder thread), so a "start" is seen even when the load then kills its process
    tasks, said = fork.Queue(), fork.SimpleQueue()
    for i in sorted(range(len(images)), key=lambda i: len(images[i]), reverse=True):  # the longest start first
        tasks.put(i)
    workers: dict[int, Any] = {}
    for _ in range(jobs):
        tasks.put(None)  # one stop for each worker, after the images
        worker = fork.Process(target=_worker, args=(images, tasks, said))
        worker.start()
        workers[int(worker.pid or 0)] = worker
    running: dict[int, int] = {}  # worker pid -> the image it loads
    done: dict[int, tuple[int, float]] = {}
    lost = 0

    def drain() -> None:
        while not said.empty():
            kind, i, pid, rc, took = said.get()
            if kind == "start":
                running[pid] = i
            else:
                done[i] = (rc, took)
                running.pop(pid, None)

    while workers:
        if said.empty():
            time.sleep(0.05)
        drain()
        for pid, worker in list(workers.items()):
            if worker.is_alive():
                continue
            drain()  # what it said before it ended
            del workers[pid]
            if running.pop(pid, None) is not None and worker.exitcode != 0:
                lost += 1
                tasks.put(None)  # the replacement's own stop
                replacement = fork.Process(target=_worker, args=(images, tasks, said))
                replacement.start()
                workers[int(replacement.pid or 0)] = replacement
    return list(done.values()), lost


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("libraries", nargs="+", type=Path)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--arch", type=int, default=90, help="the GPU's SM architecture (90: Hopper)")
    args = parser.parse_args()
    print(f"JIT cache: {os.environ.get('CUDA_CACHE_PATH', '~/.nv/ComputeCache')}, "
          f"at most {os.environ.get('CUDA_CACHE_MAXSIZE', 'the default 256 MiB')} bytes")
    for library in args.libraries:
        images = jit_only(library, args.arch)
        if not images:
            continue
        started = time.perf_counter()
        results, lost = compile_all(images, args.jobs)
        wall = time.perf_counter() - started
        failed = [rc for rc, _ in results if rc]
        slow = sum(1 for rc, took in results if rc == 0 and took > 0.05)
        print(f"{library.name}: {len(images)} containers JIT-only for sm_{args.arch}; {len(results) - len(failed)} "
              f"loaded ({slow} took over 50 ms: compiled), failed: {len(failed)} {sorted(set(failed)) or ''}, "
              f"killed the worker that loaded them: {lost}, never loaded: {len(images) - len(results) - lost}; "
              f"{sum(t for _, t in results):.0f} s of JIT in {wall:.0f} s "
              f"on {args.jobs} processes", flush=True)


if __name__ == "__main__":
    main()
