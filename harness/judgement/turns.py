"""Where a technique's answer turns between neighbouring releases: the one rule sweeps and the atlas apply.

A turn compares what a cell says in four parts, each with the nearest release before it where that part
was judged: what came back, the decisive step's verdict (where the framework's own count could tell the pool
from live objects: a release without that count, TensorFlow before 2.5, says "held by the process" of what a
later one calls "cached", and that is no turn), the loop's state, and whether the scenario ran at all. The
last is what a user asking "does this cleanup work in my release?" needs first:
TF_GPU_ALLOCATOR=cuda_malloc_async stops TensorFlow 2.5 from starting and crashes 2.6, and runs from 2.8;
a sweep that compared measured cells only said "no answer changed" across them.
"""
from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any, TypeVar

from harness.judgement.answer import decisive_step
from harness.judgement.loops import LEAKING, UNSEEN
from harness.model.judged import CellSummary, Glance
from harness.model.record import Status

# the scenario's own run failed (an exception, a crash, a hang): the release cannot do it, which is an answer;
# skipped, harness-error and unsupported (a build this GPU cannot run) say nothing about the release's behaviour
FAILED = (Status.ERROR.value, Status.CRASHED.value, Status.TIMEOUT.value)
RUNS, FAILS = "runs", "fails"
RUN_PART = 3  # the index of the "did it run" part
RUNS_TO_CONFIRM = 3  # a turn stands on this many agreeing runs on each side; on fewer it is a candidate turn

Parts = tuple[Any, ...]
Key = TypeVar("Key", bound=Hashable)


def parts(cell: CellSummary | None) -> Parts | None:
    """What a cell summary says, as a turn compares it: (what came back, the decisive verdict, loop state,
    runs/fails), a part None where it cannot be compared (cleanup steps that grew too little to judge: the exit
    alone answers them; a borderline reading, either side of its line run to run; a verdict "held" without the
    framework's own count; an unclear or twice-run loop: one whose growth is clear of its noise grows, however
    little it adds up to); None for a cell that measured nothing (skipped, a harness failure, a build the GPU cannot
    run)."""
    status = cell.get("status") if cell else None
    if status in FAILED:
        return (None, None, None, FAILS)
    if not cell or status != Status.OK.value:
        return None
    answer: Glance = cell["glance"]
    steps = cell.get("steps") or []
    step = decisive_step(steps)
    back: str | None = str(answer["back"])
    verdict: str | None = str(step["verdict"] if step else cell.get("exit"))
    if answer.get("back") in (None, "n/a", "borderline") or (
            step is None and any(s.get("verdict") == "no-signal" for s in steps)):
        back = verdict = None
    elif step and step.get("verdict") == "held" and step.get("framework_left") is None:
        verdict = None  # no count of the framework's: pool or live objects, as a counted "cached" or "held" may be
    state = said["state"] if (said := cell.get("loop")) else None
    # a leak per iteration is one side, however little it adds up to; unclear and twice-run loops neither side
    loop = "grows" if state in LEAKING else None if state in ("unclear", "twice", UNSEEN) else state
    return (back, verdict, loop, RUNS)


def points(sequence: Iterable[tuple[Key, Parts | None]]) -> list[tuple[Key, Key, bool]]:
    """(key, the key it turned from, whether it ran on one side only) for each turn along ``sequence`` (in
    release order): a part is compared with the last key where that part was judged, so a release that
    failed does not hide a cleanup turn across it, and one that measured nothing neither turns nor breaks."""
    found: list[tuple[Key, Key, bool]] = []
    order: list[Key] = []
    last: dict[int, tuple[Key, Any]] = {}
    for key, said in sequence:
        order.append(key)
        if said is None:
            continue
        judged = {part: value for part, value in enumerate(said) if value is not None}
        turned = [part for part, value in judged.items() if part in last and last[part][1] != value]
        if turned:
            before = min((last[part][0] for part in turned), key=order.index)
            found.append((key, before, RUN_PART in turned))
        last.update({part: (key, value) for part, value in judged.items()})
    return found


def contested(before: Parts, after: Parts, before_runs: Iterable[Parts | None], after_runs: Iterable[Parts | None]) -> bool:
    """A turn its own repeats contradict: a run of one side gave the other side's answer (torch 1.0.1 on an
    H100: "held" by an agent that read no pool, "cached" by today's, and 1.2.0 "cached"). No turn is
    found where the runs of a release do not settle which side it is on."""
    return after in before_runs or before in after_runs


def side(cell: CellSummary) -> str:
    """A cell's answer in words as a turn shows it: the answer's phrase, and for a run that failed what stopped it, for
    a build this hardware cannot run why."""
    error = cell.get("error") if cell.get("status") in (*FAILED, Status.UNSUPPORTED.value) else ""
    return str(cell["glance"]["text"]) + (f" ({error})" if error else "")


def confirmed(runs: tuple[int, int]) -> bool:
    """Whether a turn stands on RUNS_TO_CONFIRM agreeing runs on each side (else it is a candidate turn)."""
    return min(runs) >= RUNS_TO_CONFIRM


def candidate_words(runs: tuple[int, int]) -> str:
    """A turn's standing in words: confirmed, or a candidate with its runs on each side."""
    if confirmed(runs):
        return f"confirmed: {runs[0]} and {runs[1]} runs"
    return (f"candidate turn: {runs[0]} run{'s' if runs[0] != 1 else ''} before, {runs[1]} after "
            f"({RUNS_TO_CONFIRM} each confirm it)")
