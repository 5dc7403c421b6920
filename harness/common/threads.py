"""Work on several items at once in daemon threads, for steps that wait on other processes.

Daemon threads, not a ThreadPoolExecutor: the executor's threads keep the interpreter alive until
their work ends, so a Ctrl-C would wait for a whole image build or pip install. Here the caller's
``on_interrupt`` ends what the threads wait on (their child processes), and a thread still blocked
after that is left behind as the process exits.
"""
from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable
from typing import TypeVar

Item = TypeVar("Item")
JOIN_SLICE_S = 0.2  # the main thread wakes this often, so Ctrl-C is taken at once


def run_each(items: Iterable[Item], work: Callable[[Item], None], workers: int,
             on_interrupt: Callable[[], None] = lambda: None) -> None:
    """``work(item)`` for every item, ``workers`` at a time; the first exception a worker raises is
    raised here once the others have finished their current item (none starts another)."""
    todo: queue.Queue[Item] = queue.Queue()
    for item in items:
        todo.put(item)
    failures: list[BaseException] = []
    stop = threading.Event()

    def worker() -> None:
        while not stop.is_set():
            try:
                item = todo.get_nowait()
            except queue.Empty:
                return
            try:
                work(item)
            except BaseException as exc:
                failures.append(exc)
                stop.set()

    threads = [threading.Thread(target=worker, name=f"each-{n}", daemon=True) for n in range(max(1, workers))]
    for thread in threads:
        thread.start()
    try:
        for thread in threads:
            while thread.is_alive():
                thread.join(JOIN_SLICE_S)
    except BaseException:
        stop.set()
        on_interrupt()
        raise
    if failures:
        raise failures[0]
