"""Finding the first release where a script's memory behaviour turns, in the fewest runs.

The releases between a good and a bad one come from the package index (pkgindex.between). Both
ends run first: the good one gives the reference value, and the bad one must differ from it by
more than the threshold, or there is nothing to look for. Then a binary search: each run halves
the releases left between the last good and the first bad. A release that cannot run (no wheel,
a failed build, a cell without the reading) is set aside like ``git bisect skip`` and its
neighbour taken instead. Every run is an ordinary cell record in one run folder. What a release's
number is, and when it is bad, is the judge's (judgement/criteria.py).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from packaging.version import Version

from harness.common.errors import UsageError
from harness.common.units import human_bytes
from harness.judgement.criteria import Criterion, Measure, measure
from harness.model.record import CellRecord


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
                step.bad = criterion.worse(got.value, reference)
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
        and criterion.worse(good.measure.value, bad.measure.value)
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
