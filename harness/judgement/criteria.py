"""What ``bisect`` compares between releases, and when a release is bad: one number per record (bytes, or bytes
per iteration) over the process start (the ``pre_gpu`` reading), on the process's own GPU memory when NVML
saw the cell, else its resident host memory; growth per iteration, where that meter stays flat over a pool
the framework mapped before the loop, on the framework's own in-use count. A release is bad when its number
exceeds the good release's by more than the threshold. The judge's part of a bisection (running/bisection.py
runs the search); the command line reads CRITERIA for its help, so the judge's modules load only to measure."""
from __future__ import annotations

from dataclasses import dataclass

from harness.common.errors import UsageError
from harness.common.units import human_bytes
from harness.model.record import TIMELINE_COLUMNS, CellRecord, meter_value

CRITERIA = {
    "left": "memory left after the last cleanup checkpoint",
    "growth": "growth per loop iteration (the steepest looped checkpoint)",
    "peak": "the most held at any moment (checkpoints, the 100 Hz timeline, the host's high-water mark)",
    "label": "the reading at the checkpoint whose label contains --label",
}
DEFAULT_THRESHOLD_MIB = {"left": 64.0, "growth": 8.0, "peak": 64.0, "label": 64.0}

MIB = 1024 * 1024
EDGES = ("start", "end")  # a repro's own checkpoints around the script: not cleanups


@dataclass(frozen=True)
class Criterion:
    name: str = "left"
    threshold: int = int(DEFAULT_THRESHOLD_MIB["left"] * MIB)
    label: str = ""

    @classmethod
    def make(cls, name: str, threshold_mib: float | None, label: str | None) -> Criterion:
        if name not in CRITERIA:
            raise UsageError(f"unknown criterion {name!r} (known: {', '.join(CRITERIA)})")
        if name == "label" and not label:
            raise UsageError("--criterion label needs --label TEXT (part of a checkpoint label, e.g. 'train.py:31')")
        mib = DEFAULT_THRESHOLD_MIB[name] if threshold_mib is None else threshold_mib
        if mib < 0:
            raise UsageError(f"--threshold must not be negative, got {mib}")
        return cls(name, int(mib * MIB), label or "")

    def worse(self, value: int, reference: int) -> bool:
        """Whether ``value`` is bad against the good release's ``reference``: more than the threshold above it."""
        return value - reference > self.threshold

    def describe(self) -> str:
        unit = " per iteration" if self.name == "growth" else ""
        what = CRITERIA[self.name].replace("--label", repr(self.label))
        return f"{what}; bad when it exceeds the good release's by more than {human_bytes(self.threshold)}{unit}"


@dataclass(frozen=True)
class Measure:
    value: int | None
    meter: str
    where: str  # which checkpoint (or why there is no value)


def _floor(record: CellRecord, meter: str) -> int:
    """What a release's amount is measured from: on the GPU, the process before any CUDA call; in host
    memory, the checkpoint the judge takes as the floor (after the framework's import), so each
    release's own import footprint (TF's grew ~100 MiB at 2.12) is not read as the script's memory."""
    if meter == "rss":
        label = (record.get("verdicts") or {}).get("floor")
        at = [cp for cp in record.get("checkpoints") or [] if cp["label"] == label]
        value = meter_value(at[0].get("readings"), meter) if at else None
        if value is not None:
            return value
    pre = record.get("pre_gpu")
    value = meter_value(pre.get("readings"), meter) if pre else None
    if value is not None:
        return value
    first = (record.get("checkpoints") or [])[:1]
    return (meter_value(first[0].get("readings"), meter) if first else None) or 0


def measure(record: CellRecord, criterion: Criterion) -> Measure:
    """The criterion's number for one record, with its meter and where it was read (or why there is none)."""
    from harness.judgement import loops, verdicts  # the judge's rules: loaded when a record is measured

    meter = verdicts.measured_meter(record)
    cps = [cp for cp in record.get("checkpoints") or [] if not cp.get("skipped")]
    if not cps:
        return Measure(None, meter, f"no checkpoint ({record.get('status')})")
    floor = _floor(record, meter)
    if criterion.name == "growth":
        # repro's loop line, by the same rule: a slope inside the readings' jitter is no growth, and
        # where the meter is blind (a pool mapped before the loop) the framework's own count answers
        line = loops.summary({**record, "checkpoints": cps}, meter)
        if line is None:
            return Measure(None, meter, "no checkpoint inside a loop")
        return Measure(line["slope"] if line["growing"] else 0, line["meter"],
                       f"{line['site']} over {line['measured']} iterations: {line['text']}")
    if criterion.name == "peak":
        column = TIMELINE_COLUMNS.index(meter)
        samples = [int(v) for s in ((record.get("timeline") or {}).get("samples") or []) if (v := s[column]) is not None]
        values = samples + [v for cp in cps if (v := meter_value(cp.get("readings"), meter)) is not None]
        values += verdicts.high_water_marks(cps) if meter == "rss" else []
        return Measure(max(values) - floor if values else None, meter, "peak")
    if criterion.name == "label":
        hits = [cp for cp in cps if criterion.label in cp["label"]]
        if not hits:
            return Measure(None, meter, f"no checkpoint label contains {criterion.label!r}")
        chosen = hits[-1]
    else:
        cleanups = [cp for cp in cps if cp["label"] not in EDGES]
        chosen = (cleanups or cps)[-1]
    value = meter_value(chosen.get("readings"), meter)
    return Measure(None if value is None else value - floor, meter, chosen["label"])
