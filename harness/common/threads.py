"""Work on several items at once in daemon threads, for steps that wait on other processes.

Daemon threads, not a ThreadPoolExecutor: the executor's threads keep the interpreter alive until
their work ends, so a Ctrl-C would wait for a whole image build or pip install. Here the caller's
``on_interrupt`` ends what the threads wait on (their child processes, their containers), and a
thread still blocked after that is left behind as the process exits.

Each worker says itself when it has ended, through an Event: a ``Thread.join`` cut by Ctrl-C can
leave the thread marked stopped while it still runs (CPython 3.11), and whatever it has in flight
would then outlive the stop.
"""
from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

Item = TypeVar("Item")
Slot = TypeVar("Slot")
WAKE_S = 0.2  # the main thread wakes this often, so Ctrl-C is taken at once


def run_on(slots: Sequence[Slot], items: Iterable[Item], work: Callable[[Item, Slot], None],
           on_interrupt: Callable[[Callable[[float], None]], None]) -> None:
    """One worker per slot, each running ``work(item, slot)`` for items from a shared queue; the first
    exception a worker raises is raised here once the others have finished their current item (none
    starts another). On Ctrl-C, ``on_interrupt(wait)`` runs, where ``wait(timeout)`` waits for every
    worker to end (at most ``timeout`` seconds each)."""
    todo: queue.Queue[Item] = queue.Queue()
    for item in items:
        todo.put(item)
    failures: list[BaseException] = []
    stop = threading.Event()
    ended = [threading.Event() for _ in slots]

    def worker(slot: Slot, its_end: threading.Event) -> None:
        try:
            while not stop.is_set():
                try:
                    item = todo.get_nowait()
                except queue.Empty:
                    return
                try:
                    work(item, slot)
                except BaseException as exc:
                    failures.append(exc)
                    stop.set()
        finally:
            its_end.set()

    def wait(timeout: float) -> None:
        for its_end in ended:
            its_end.wait(timeout)

    for slot, its_end in zip(slots, ended, strict=True):
        threading.Thread(target=worker, args=(slot, its_end), name=f"slot-{slot}", daemon=True).start()
    try:
        for its_end in ended:
            while not its_end.wait(WAKE_S):
                pass
    except BaseException:
        stop.set()
        on_interrupt(wait)
        raise
    if failures:
        raise failures[0]


def run_each(items: Iterable[Item], work: Callable[[Item], None], workers: int,
             on_interrupt: Callable[[], None] = lambda: None) -> None:
    """``work(item)`` for every item, ``workers`` at a time (see ``run_on``)."""
    run_on(range(max(1, workers)), items, lambda item, _slot: work(item), lambda _wait: on_interrupt())
