"""Finding the first release where a script's memory behaviour turns, in the fewest runs.

The releases between a good and a bad one come from the package index (pkgindex.between). Both
ends run first: the good one gives the reference value, and the bad one must differ from it by
more than the threshold, or there is nothing to look for. Then a binary search: each run halves
the releases left between the last good and the first bad. A release that cannot run (no wheel,
a failed build, a cell without the reading) is set aside like ``git bisect skip`` and its
neighbour taken instead. Every run is an ordinary cell record in one run folder.

A criterion turns one record into one number (bytes, or bytes per iteration) over the process
start (the ``pre_gpu`` reading), on the process's own GPU memory when NVML saw the cell, else
on its resident host memory; growth per iteration, where that meter stays flat over a pool the
framework mapped before the loop, on the framework's own in-use count. A release is bad when its
number exceeds the good release's by more than the threshold.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from packaging.version import Version

from harness.common.errors import UsageError
from harness.common.units import human_bytes
from harness.judgement import loops, verdicts
from harness.model.record import TIMELINE_COLUMNS, CellRecord, meter_value
from harness.running.criteria import CRITERIA, DEFAULT_THRESHOLD_MIB

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


@dataclass
class Step:
    version: Version
    measure: Measure | None
    status: str
    bad: bool | None = None  # None: could not be judged (skipped)
    note: str = ""


@dataclass
class Outcome:
    versions: list[Version]
    steps: list[Step] = field(default_factory=list)
    first_bad: Version | None = None
    last_good: Version | None = None
    answer: str = ""


Runner = Callable[[Version], tuple[CellRecord | None, str]]  # a release -> (its record, or None; status note)


def search(versions: list[Version], criterion: Criterion, run: Runner) -> Outcome:
    """Run the ends, then halve the interval until the first bad release is next to a good one. Where
    the --bad end is the better one, the labels were the other way round: the same turn is searched from
    it, and worded by the releases' order (a newer good end: fixed in; an older one: first bad)."""
    outcome = Outcome(versions)
    if len(versions) < 2:
        raise UsageError("bisect needs at least two releases between --good and --bad")

    def judge(version: Version, reference: int | None) -> Step:
        record, note = run(version)
        if record is None:
            step = Step(version, None, "skipped", None, note)
        else:
            got = measure(record, criterion)
            step = Step(version, got, str(record.get("status")), None, note or got.where)
            if got.value is not None and reference is not None:
                step.bad = got.value - reference > criterion.threshold
            elif got.value is not None:
                step.bad = False  # the good end: the reference itself
        outcome.steps.append(step)
        return step

    good = judge(versions[0], None)
    if good.measure is None or good.measure.value is None:
        outcome.answer = f"the good release {versions[0]} gave no reading ({good.note}): nothing to compare with"
        return outcome
    reference: int | None = good.measure.value
    bad = judge(versions[-1], reference)
    swapped = bad.bad is False and bad.measure is not None and bad.measure.value is not None \
        and good.measure.value - bad.measure.value > criterion.threshold
    if swapped:  # the --bad end is the better one by more than the threshold: the same turn, the other way round
        versions = versions[::-1]
        outcome.versions = versions
        good, bad = bad, good
        good.bad, bad.bad = False, True
        reference = good.measure.value if good.measure else None
    if bad.bad is not True or reference is None:
        outcome.answer = (f"no turn: {versions[-1]} gave {_shown(bad, criterion)} against {_shown(good, criterion)} "
                          f"for {versions[0]} ({criterion.describe()})")
        return outcome
    lo, hi = 0, len(versions) - 1
    candidates = list(range(1, len(versions) - 1))
    while True:
        inside = [i for i in candidates if lo < i < hi]
        if not inside:
            break
        mid = inside[len(inside) // 2]
        candidates.remove(mid)
        step = judge(versions[mid], reference)
        if step.bad is None:
            continue  # cannot say: take a neighbour next
        if step.bad:
            hi = mid
        else:
            lo = mid
    outcome.first_bad, outcome.last_good = versions[hi], versions[lo]
    unjudged = [s for s in outcome.steps if s.bad is None and versions[lo] < s.version < versions[hi]]
    if versions[0] > versions[-1]:  # the good end is the newer release: the question is where it was fixed
        outcome.answer = f"fixed in {versions[lo]} (last bad: {versions[hi]})"
    else:
        outcome.answer = f"first bad: {versions[hi]} (last good: {versions[lo]})"
    if swapped:
        outcome.answer += (f"; --good {versions[-1]} and --bad {versions[0]} were the other way round ({versions[0]} "
                           f"gave {_shown(good, criterion)}, {versions[-1]} {_shown(bad, criterion)})")
    if unjudged:
        outcome.answer += "; could not judge " + ", ".join(str(s.version) for s in unjudged) + ", which lie between"
    return outcome


def _shown(step: Step, criterion: Criterion) -> str:
    if step.measure is None or step.measure.value is None:
        return f"no reading ({step.note})"
    return human_bytes(step.measure.value) + (" per iteration" if criterion.name == "growth" else "")


def table(outcome: Outcome, criterion: Criterion, walls: dict[Version, float] | None = None,
          companions: dict[Version, dict[str, str]] | None = None) -> str:
    """Markdown: every release run, in version order, with its value, verdict, wall time (making the
    environment included) and what came with it (Keras, numpy...: ``companions``)."""
    walls, companions = walls or {}, companions or {}
    lines = ["| release | value | verdict | where | status | wall | with |", "|---|---|---|---|---|---|---|"]
    for step in sorted(outcome.steps, key=lambda s: s.version):
        verdict = {True: "bad", False: "good", None: "not judged"}[step.bad]
        where = (step.measure.where if step.measure else step.note).replace("|", "\\|")
        wall = f"{walls[step.version]:.1f} s" if step.version in walls else ""
        came = ", ".join(f"{name} {version}" for name, version in sorted(companions.get(step.version, {}).items()))
        lines.append(f"| {step.version} | {_shown(step, criterion)} | {verdict} | `{where}` | {step.status} | {wall} | "
                     f"{came or '-'} |")
    return "\n".join(lines)
