"""After the cell's exit, the driver gives a CUDA context back over some tens of milliseconds: the reading waited
for a flat window of five readings 20 ms apart, however early the GPU was back where it was before the cell. It
stops as soon as the device reads within the settling band of that reading; a GPU still above it waits as before."""
from __future__ import annotations

from dataclasses import dataclass, field

from harness.measurement import meters
from harness.measurement.meters import Meters, PidTracker

MiB = 1 << 20


@dataclass
class DrainingGpu:
    """An NVML whose device reading falls step by step to ``floor``, one step per reading (a context torn down)."""

    steps: list[int]
    floor: int
    reads: int = 0
    seen: list[int] = field(default_factory=list)

    def device_used(self, index: int) -> int:
        value = self.steps[self.reads] if self.reads < len(self.steps) else self.floor
        self.reads += 1
        self.seen.append(value)
        return value

    def device_reserved(self, index: int) -> int:
        return 0

    def running(self, index: int) -> list[tuple[int, int]]:
        return []


def test_the_after_exit_reading_stops_once_the_gpu_is_back_where_it_was() -> None:
    before = {"nvml_device": 1000 * MiB}
    gpu = DrainingGpu(steps=[1900 * MiB, 1500 * MiB, 1200 * MiB, 1001 * MiB], floor=1000 * MiB)
    readings, settle = Meters(gpu).read_settled(PidTracker(lambda: None), back=before)  # type: ignore[arg-type]
    assert readings["nvml_device"] == 1001 * MiB and settle["back"] is True
    assert gpu.reads == 4 and settle["settle_s"] < meters.SETTLE_INTERVAL_S * meters.SETTLE_WINDOW


def test_a_gpu_that_stays_above_where_it_was_is_read_until_flat() -> None:
    """Memory the cell left behind (another process holds it): no early stop, the flat window decides."""
    gpu = DrainingGpu(steps=[1900 * MiB, 1500 * MiB], floor=1200 * MiB)
    readings, settle = Meters(gpu).read_settled(PidTracker(lambda: None),  # type: ignore[arg-type]
                                                back={"nvml_device": 1000 * MiB})
    assert readings["nvml_device"] == 1200 * MiB and not settle.get("back") and settle["settled"] is True
    assert gpu.reads >= meters.SETTLE_WINDOW


def test_without_a_gpu_reading_nothing_stops_early() -> None:
    gpu = DrainingGpu(steps=[], floor=0)
    gpu.device_used = lambda index: None  # type: ignore[method-assign,assignment,return-value]
    _, settle = Meters(gpu).read_settled(PidTracker(lambda: None), back={"nvml_device": None})  # type: ignore[arg-type]
    assert not settle.get("back")
