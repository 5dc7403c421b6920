"""Host-side meters: what a cell's processes hold, read from outside them.

Three meters, one reading each (bytes, or None when unavailable):
  * ``rss``          resident host memory of the cell's processes (/proc), so the whole
                     pipeline measures something real on a machine without a GPU;
  * ``nvml_device``  used memory of the cell's GPU, all processes (what nvidia-smi shows);
  * ``nvml_process`` GPU memory of the cell's own processes, by host PID, children included;
  * ``nvml_reserved`` memory the driver reserves for itself on that GPU (NVML's v2 memory info,
                     where the driver offers it), so "in use" can be told from "reserved".

Settle rule (``read_settled``): first, up to ``FAST_READS`` readings ``FAST_INTERVAL_S`` apart;
when ``FAST_WINDOW`` of them in a row are identical on every meter (NVML's exact byte counts,
the same RSS page count), nothing is moving and that is the reading (a few ms: what makes a
checkpoint in a loop cheap). Otherwise read every ``SETTLE_INTERVAL_S``; a reading is taken once
the last ``SETTLE_WINDOW`` readings of every meter lie within ``SETTLE_BAND_BYTES`` of each
other, or after ``SETTLE_TIMEOUT_S`` (then marked unsettled). Frees and driver book-keeping land
a few milliseconds after the call returns; this waits them out without hiding a slow leak.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from harness.measurement import procs
from harness.measurement.nvml import Nvml, Running, used_by
from harness.measurement.process_spans import ProcessSpans
from harness.model.readings import Readings, Settle
from harness.model.record import meter_value

METERS = ("rss", "nvml_device", "nvml_process", "nvml_reserved")
FAST_INTERVAL_S = 0.002
FAST_WINDOW = 4
FAST_READS = 6
SETTLE_INTERVAL_S = 0.02
SETTLE_WINDOW = 5
SETTLE_BAND_BYTES = 2 * 1024 * 1024
SETTLE_TIMEOUT_S = 3.0
TIMELINE_INTERVAL_S = 0.01  # 100 Hz target; >= 50 Hz is the promise
PID_REFRESH_S = 0.1


class PidTracker:
    """The cell's host PIDs: the descendants of its root PID, refreshed at most every 100 ms.

    The root is the cell's reaper (harness/agent/reaper.py), which holds what the script leaves
    behind and is not the script's: it is never measured. Every PID ever seen is remembered, so
    a child that has exited is still stopped and its absence still shows in the readings.
    """

    def __init__(self, root: Callable[[], int | None]) -> None:
        self._root = root
        self._pids: set[int] = set()
        self.seen: set[int] = set()
        self._at = 0.0
        self._lock = threading.Lock()

    def current(self, force: bool = False) -> set[int]:
        with self._lock:
            now = time.monotonic()
            if force or now - self._at >= PID_REFRESH_S:
                root = self._root()
                self._pids = procs.descendants(root) - {root} if root else set()
                self.seen |= self._pids
                self._at = now
            return set(self._pids)


@dataclass
class Meters:
    """Readings of a cell: host RSS of its processes, and NVML on the GPUs its script sees (one for a
    matrix cell; every GPU given to a bug report's script), summed over them; ``per_gpu`` splits them."""

    nvml: Nvml
    gpu_index: int = 0
    gpu_indices: tuple[int, ...] = ()  # the GPUs the script sees, where more than ``gpu_index``

    @property
    def gpus(self) -> tuple[int, ...]:
        return self.gpu_indices or (self.gpu_index,)

    def running(self) -> dict[int, Running | None]:
        """NVML's process listing of each of the cell's GPUs."""
        return {i: self.nvml.running(i) for i in self.gpus}

    def read(self, pids: set[int], running: dict[int, Running | None] | None = None) -> Readings:
        """Every meter now; ``running``: the GPUs' process listings where the caller has just read them."""
        listed = running if running is not None else self.running()
        rss, children = procs.rss_split(pids)
        readings: Readings = {
            "rss": rss,
            "nvml_device": _total(self.nvml.device_used(i) for i in self.gpus),
            "nvml_process": _total(used_by(listed[i], pids) for i in self.gpus),
            "nvml_reserved": _total(self.nvml.device_reserved(i) for i in self.gpus),
        }
        if children is not None:  # the script started processes: their own pages, shown apart
            readings["rss_children"] = children
        return readings

    def per_gpu(self, pids: set[int]) -> dict[str, dict[str, int | None]] | None:
        """Each GPU's device and per-process reading, where the script sees more than one."""
        if len(self.gpus) < 2:
            return None
        return {str(i): {"nvml_device": self.nvml.device_used(i), "nvml_process": self.nvml.process_used(i, pids)}
                for i in self.gpus}

    def read_settled(self, tracker: PidTracker, back: Readings | None = None) -> tuple[Readings, Settle]:
        """A reading that has stopped moving, and how it was obtained, with the script's resident peak so far.
        ``back``: a reading to stop at as soon as the GPU is within the settling band of it (after the cell's exit,
        the device as it was before the cell: nothing later can come back, so no flat window is waited for)."""
        readings, settle = self._settled(tracker, back)
        if (peak := procs.peak_rss(tracker.current())) is not None:
            readings["rss_peak"] = peak
        return readings, settle

    def _settled(self, tracker: PidTracker, back: Readings | None) -> tuple[Readings, Settle]:
        start = time.monotonic()
        window: list[Readings] = []
        while len(window) < FAST_READS:
            window.append(self.read(tracker.current(force=not window)))
            if _back_at(window[-1], back):
                return window[-1], {"settled": True, "settle_s": round(time.monotonic() - start, 4), "back": True}
            if len(window) >= FAST_WINDOW and all(r == window[-1] for r in window[-FAST_WINDOW:]):
                return window[-1], {"settled": True, "settle_s": round(time.monotonic() - start, 4), "fast": True}
            time.sleep(FAST_INTERVAL_S)
        window = window[-1:]
        while True:
            window.append(self.read(tracker.current(force=not window)))
            window = window[-SETTLE_WINDOW:]
            elapsed = time.monotonic() - start
            if _back_at(window[-1], back):
                return window[-1], {"settled": True, "settle_s": round(elapsed, 3), "back": True}
            if len(window) == SETTLE_WINDOW and _flat(window):
                return window[-1], {"settled": True, "settle_s": round(elapsed, 3)}
            if elapsed >= SETTLE_TIMEOUT_S:
                return window[-1], {"settled": False, "settle_s": round(elapsed, 3)}
            time.sleep(SETTLE_INTERVAL_S)


def _total(values: Iterable[int | None]) -> int | None:
    """A sum over GPUs, or None where any GPU could not be read (never a partial sum as a whole)."""
    found = list(values)
    return None if any(v is None for v in found) else sum(v for v in found if v is not None)


def _back_at(reading: Readings, back: Readings | None) -> bool:
    """Whether the GPU reads within the settling band of ``back`` (never without a GPU reading on both)."""
    now, then = reading.get("nvml_device"), (back or {}).get("nvml_device")
    return now is not None and then is not None and now - then <= SETTLE_BAND_BYTES


def _flat(window: list[Readings]) -> bool:
    for name in METERS:
        values = [v for v in (meter_value(r, name) for r in window) if v is not None]
        if values and max(values) - min(values) > SETTLE_BAND_BYTES:
            return False
    return True


@dataclass
class TimelineSampler:
    """A background thread sampling every meter at ~100 Hz, so peaks between checkpoints show.

    Samples are [t (epoch s), rss, nvml_device, nvml_process]; ``spans`` keeps each process's own
    peak and last sighting per GPU from the same NVML listings.
    """

    meters: Meters
    tracker: PidTracker
    interval: float = TIMELINE_INTERVAL_S
    samples: list[list[float | int | None]] = field(default_factory=list)
    spans: ProcessSpans = field(default_factory=ProcessSpans)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def __enter__(self) -> TimelineSampler:
        self._thread = threading.Thread(target=self._loop, name="timeline", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)

    def _loop(self) -> None:
        next_at = time.monotonic()
        while not self._stop.is_set():
            pids, running = self.tracker.current(), self.meters.running()
            r = self.meters.read(pids, running)
            t = round(time.time(), 4)
            self.samples.append([t, r["rss"], r["nvml_device"], r["nvml_process"]])
            self.spans.add(t, pids, running)
            next_at += self.interval
            delay = next_at - time.monotonic()
            if delay > 0:
                self._stop.wait(delay)
            else:
                next_at = time.monotonic()

    def rate_hz(self) -> float | None:
        if len(self.samples) < 2:
            return None
        span = float(self.samples[-1][0] or 0) - float(self.samples[0][0] or 0)
        return round((len(self.samples) - 1) / span, 1) if span > 0 else None
