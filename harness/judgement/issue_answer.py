"""Does a bug report reproduce, on the reporter's releases and on today's: one sentence per framework.

A release reproduces the report where its memory stays: the judge's answer is not "all back"
(amber or red), or its loop grows clear of the readings' noise (also where that growth adds up to
less than the meter judges over the iterations run: a leak per call is a leak). It does not where
everything came back, or where the script's loop stays flat (a report with a loop is about its growth:
what is left after it is what the script still holds, a model or a cache). A release that ran but measured
nothing that answers (no signal, an unclear loop) cannot tell; one that did not run to its end, or
could not run here, says why. Releases are put in order, and each place where the answer turns
between two of them is said with the bisect that finds the release. Where both sides reproduce, amounts
answer too (judgement/amounts.py's rule: FACTOR apart and clear of half the meter's noise): a loop that grows
26 times slower, or what is left a fifth of it, is "mostly fixed" between them, with the bisect on that
amount (``--criterion growth`` or ``left``); growth or what is left several times larger "got worse".
Where the report gives its own figure ("190Mb per call"), a loop here that grows REPORTED_FACTOR times
slower is not the report's leak: "does not reproduce at the report's size", both figures said.
"""
from __future__ import annotations

from dataclasses import dataclass

from harness.common.commands import command
from harness.common.units import human_bytes
from harness.judgement import tolerances
from harness.judgement.amounts import CANDIDATE_FROM, FACTOR
from harness.judgement.answer import Answer, Colour
from harness.judgement.floors import reading
from harness.judgement.loops import LEAKING
from harness.judgement.verdicts import IMPORT_LABEL
from harness.model.record import CellRecord

# The report's own figure comes from another machine, meter and loop length: only an order of magnitude less
# growth here says the report's leak is not what this release does.
REPORTED_FACTOR = 10.0
_TODAYS = "today's "


@dataclass(frozen=True)
class Replay:
    framework: str
    release: str  # what ran (the record's version), or what was asked where it could not run
    today: bool  # the tool's own environment of the framework, else a release the report states
    answer: Answer | None = None  # None: it could not run here
    why: str = ""  # why it could not run
    said: str = ""  # what the report says of this release: "good", "bad" or ""
    ran: bool = True  # the script ran to its end (an error or a crash is no answer about memory)
    imported: int | None = None  # host memory the framework's import took (RSS after it less at the start)
    reported: float = 0.0  # the report's own growth per call/iteration, in bytes (0: it gives none)
    reported_words: str = ""  # as the report wrote it: "190Mb per call"


def import_cost(record: CellRecord) -> int | None:
    """Host memory the script's first framework import took: RSS at that checkpoint less at `start` (the floor
    every verdict is judged from, so no verdict says it; a report about the import's own size asks it)."""
    points = record.get("checkpoints") or []
    first = next((cp for cp in points if IMPORT_LABEL.match(cp["label"])), None)
    start = reading(points[0], "rss") if points else None
    after = reading(first, "rss") if first else None
    return after - start if start is not None and after is not None else None


def _below_reported(replay: Replay) -> float | None:
    """How many times the report's own figure exceeds this release's growth, where that is REPORTED_FACTOR or more."""
    loop = replay.answer.loop if replay.answer else None
    if not replay.reported or not loop or not loop.get("slope"):
        return None
    times = replay.reported / max(float(loop["slope"]), 1.0)
    return times if times >= REPORTED_FACTOR else None


def reproduces(replay: Replay) -> bool | None:
    """True, False, or None where this run cannot tell."""
    answer = replay.answer
    if answer is None or not replay.ran:
        return None
    state = answer.loop["state"] if answer.loop else None
    if state in LEAKING:
        return _below_reported(replay) is None
    if state == "flat":  # a report with a loop is about its growth: what is left after a flat loop is what the script
        return False     # still holds (its model, a cache), on every release alike
    if answer.colour is Colour.GREY:
        return None
    return answer.colour is not Colour.GREEN


def _part(replay: Replay) -> str:
    whose = "today's" if replay.today else "the reporter's"
    said = {"good": ", said to work", "bad": ", said to have the bug"}.get(replay.said, "")
    if replay.answer is None:
        return f"{whose} {replay.release}{said}: could not run here ({replay.why})"
    if not replay.ran:
        return f"on {whose} {replay.release}{said}: did not run to its end ({replay.why or replay.answer.text})"
    verdict = {True: "reproduces", False: "does not reproduce", None: "cannot tell"}[reproduces(replay)]
    times = _below_reported(replay) if replay.answer.loop and replay.answer.loop["state"] in LEAKING else None
    if times is not None:
        return (f"on {whose} {replay.release}{said}: does not reproduce at the report's size ({replay.answer.text}; "
                f"the report's {replay.reported_words} is {times:.0f}x more)")
    return f"on {whose} {replay.release}{said}: {verdict} ({replay.answer.text})"


def _order(replay: Replay) -> tuple[object, ...]:
    from packaging.version import InvalidVersion, Version

    try:
        return (0, Version(replay.release), replay.today)
    except InvalidVersion:
        return (1, replay.release, replay.today)


def sentence(framework: str, replays: list[Replay], script: str) -> str:
    """``torch: on the reporter's 2.1.0: reproduces (...); on today's 2.13.0: does not reproduce
    (released): fixed between 2.1.0 and 2.13.0; `bisect ...` finds the release.``"""
    mine = sorted((r for r in replays if r.framework == framework), key=_order)
    said = "; ".join(_part(r) for r in mine)
    known = [r for r in mine if reproduces(r) is not None]
    turns = []
    for before, after in zip(known, known[1:], strict=False):  # each release beside the next
        if reproduces(before) and reproduces(after):
            turns += [t for t in [_by_amount(before, after, framework, script)] if t]
            continue
        if reproduces(before) is reproduces(after):
            continue
        good, bad = (after, before) if reproduces(before) else (before, after)
        what = "fixed" if reproduces(before) else "it appeared"
        bisect = command("bisect", script, "--package", framework, "--good", good.release, "--bad", bad.release)
        turns.append(f"{what} between {before.release} and {after.release} (`{bisect}` finds the release)")
    if turns:
        return f"{framework}: {said}: " + "; ".join(turns) + "."
    if len(known) > 1 and all(reproduces(r) for r in known):
        return f"{framework}: {said}: it happens on every release that ran."
    if len(known) > 1 and all(r.answer and r.answer.loop and r.answer.loop["state"] == "flat" for r in known):
        return (f"{framework}: {said}: it reproduces on none: its loop stays flat on each (what is left at its end is "
                "what the script still holds; the report's growth may need more iterations, another meter, GPU or setting).")
    costs = [r for r in mine if r.imported and r.ran and r.answer]
    if not known and len(costs) > 1:  # nothing to judge after the import: what the import itself takes, release by release
        each = ", ".join(f"{human_bytes(r.imported or 0)} on {_TODAYS if r.today else ''}{r.release}" for r in costs)
        return (f"{framework}: {said}: nothing after the import to judge; the import itself took {each} of host memory "
                "(the floor every verdict is judged from; a report about the import's own size compares these).")
    if len(known) > 1 and any(_below_reported(r) for r in known):
        return (f"{framework}: {said}: it reproduces on none at the report's size (a loop here grows, but ten times "
                "slower or more than the report says).")
    if len(known) > 1:
        return (f"{framework}: {said}: it reproduces on none (the memory comes back here; the report's numbers may "
                "come from another meter, GPU or setting).")
    return f"{framework}: {said}."


def _amounts(replay: Replay) -> tuple[str, float, str] | None:
    """(criterion, amount, meter) a reproducing release is measured by: its loop's growth per iteration where
    the loop leaks, else what is left."""
    answer = replay.answer
    if answer is None:
        return None
    if answer.loop and answer.loop["state"] in LEAKING and answer.loop.get("slope"):
        return "growth", float(answer.loop["slope"]), str(answer.meter or "")
    if answer.left:
        return "left", float(answer.left), str(answer.meter or "")
    return None


def _by_amount(before: Replay, after: Replay, framework: str, script: str) -> str | None:
    """"mostly fixed between 2.2.0 and 2.13.0: 606.00 MiB left on 2.2.0, 127.00 MiB on 2.13.0 (4.8x less)" where
    two reproducing releases differ FACTOR-fold and by more than half the meter's noise; else None."""
    first, second = _amounts(before), _amounts(after)
    if first is None or second is None or first[0] != second[0]:
        return None
    kind, meter = first[0], first[2] or second[2]
    low, high = sorted((first[1], second[1]))
    rule = tolerances.METER_RULES.get(meter)
    noise = CANDIDATE_FROM * rule.abs_tol if rule and kind == "left" else 0.0
    if high < FACTOR * max(low, 1.0) or high - low <= noise:
        return None
    unit = " per iteration" if kind == "growth" else " left"
    less = second[1] < first[1]
    ratio = high / max(low, 1.0)
    good, bad = (after, before) if less else (before, after)
    bisect = command("bisect", script, "--package", framework, "--good", good.release, "--bad", bad.release,
                     "--criterion", kind)
    return (f"{'mostly fixed' if less else 'got worse'} between {before.release} and {after.release}: "
            f"{human_bytes(first[1])}{unit} on {before.release}, {human_bytes(second[1])} on {after.release} "
            f"({ratio:.1f}x {'less' if less else 'more'}; `{bisect}` finds the release)")
