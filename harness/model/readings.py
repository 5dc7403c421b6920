"""One instant's readings of every meter, and how a settled one was obtained: the measurement's values, as a
record keeps them at each checkpoint and after the cell's exit."""
from __future__ import annotations

from typing_extensions import TypedDict


class Readings(TypedDict, total=False):
    """Bytes per meter at one instant; ``None`` where the meter could not read (never 0)."""
    rss: int | None
    rss_children: int | None  # of rss: the script's child processes, their own pages (USS); absent without any
    rss_peak: int | None  # at a checkpoint: the highest RSS of the script's own process since it started (VmHWM)
    nvml_device: int | None
    nvml_process: int | None
    nvml_reserved: int | None  # the device's own reserved memory (NVML v2), not anyone's allocation


class Settle(TypedDict, total=False):
    settled: bool | None
    settle_s: float | None
    fast: bool | None  # the first reading already agreed with the next
    back: bool | None  # after the cell's exit: the GPU read as before the cell, so no flat window was waited for
