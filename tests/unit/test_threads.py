"""Environments made at once (common/threads.py), and a Ctrl-C that ends the children they wait on."""
from __future__ import annotations

import sys
import threading
import time

import pytest

from harness.common import threads
from harness.measurement import subproc


def test_items_run_at_once_up_to_the_workers() -> None:
    active, most = [0], [0]
    lock = threading.Lock()

    def work(_: int) -> None:
        with lock:
            active[0] += 1
            most[0] = max(most[0], active[0])
        time.sleep(0.3)
        with lock:
            active[0] -= 1

    began = time.monotonic()
    threads.run_each(range(4), work, workers=2)
    assert most[0] == 2 and 0.55 < time.monotonic() - began < 1.5  # two rounds of two, not four in a row


def test_a_worker_failure_is_raised_after_the_others_finish() -> None:
    done: list[int] = []

    def work(item: int) -> None:
        if item == 0:
            time.sleep(0.1)  # the other has started by now
            raise ValueError("broken environment")
        time.sleep(0.3)
        done.append(item)

    with pytest.raises(ValueError, match="broken environment"):
        threads.run_each([0, 1, 2], work, workers=2)
    assert done == [1]  # the running one finished; the third never started


def test_stop_running_ends_a_child_that_a_worker_waits_on() -> None:
    """A Ctrl-C reaches the main thread only: the children the workers wait on are ended for them."""
    results: list[int] = []

    def install(_: int) -> None:
        results.append(subproc.run([sys.executable, "-c", "import time; time.sleep(60)"], timeout=120).returncode)

    worker = threading.Thread(target=threads.run_each, args=([0], install, 1), daemon=True)
    worker.start()
    deadline = time.monotonic() + 10
    while not subproc._running and time.monotonic() < deadline:
        time.sleep(0.05)
    began = time.monotonic()
    subproc.stop_running()
    worker.join(10)
    assert not worker.is_alive() and time.monotonic() - began < 5
    assert results and results[0] != 0  # killed, not finished
