"""Does a bug report reproduce, on the reporter's release and on today's: one sentence per framework.

A release reproduces the report where the judge's answer is not "all back" (amber or red: memory
the cleanups did not give back, or a loop that grows); green is "does not reproduce"; a cell that
did not run to its end (grey) or could not run here says so and why. Where the two ends differ, the
sentence ends with the bisect that finds the release where it turned.
"""
from __future__ import annotations

from dataclasses import dataclass

from harness.common.commands import command
from harness.judgement.answer import Answer, Colour


@dataclass(frozen=True)
class Replay:
    framework: str
    release: str  # what ran (the record's version), or what was asked where it could not run
    today: bool  # the tool's own environment of the framework, else a release the report states
    answer: Answer | None = None  # None: it could not run here
    why: str = ""  # why it could not run
    said: str = ""  # what the report says of this release: "good", "bad" or ""


def reproduces(answer: Answer | None) -> bool | None:
    if answer is None or answer.colour is Colour.GREY:
        return None
    return answer.colour is not Colour.GREEN


def _part(replay: Replay) -> str:
    whose = "today's" if replay.today else "the reporter's"
    said = {"good": ", said to work", "bad": ", said to have the bug"}.get(replay.said, "")
    if replay.answer is None:
        return f"{whose} {replay.release}{said} could not run here ({replay.why})"
    verdict = {True: "reproduces", False: "does not reproduce", None: "did not run to its end"}[reproduces(replay.answer)]
    return f"on {whose} {replay.release}{said}: {verdict} ({replay.answer.text})"


def sentence(framework: str, replays: list[Replay], script: str) -> str:
    """``torch: on the reporter's 2.1.0: reproduces (...); on today's 2.13.0: does not reproduce
    (released): fixed between them; `bisect ...` finds the release.``"""
    mine = sorted((r for r in replays if r.framework == framework), key=lambda r: r.today)  # the reporter's first
    said = "; ".join(_part(r) for r in mine)
    theirs = [r for r in mine if not r.today and reproduces(r.answer) is not None]
    today = [r for r in mine if r.today and reproduces(r.answer) is not None]
    if not theirs or not today:
        return f"{framework}: {said}."
    bad_then, bad_now = any(reproduces(r.answer) for r in theirs), any(reproduces(r.answer) for r in today)
    if bad_then and bad_now:
        return f"{framework}: {said}: it still happens."
    if not bad_then and not bad_now:
        return (f"{framework}: {said}: it reproduces on neither (the memory comes back here; the report's numbers may "
                "come from another meter, GPU or setting).")
    old = next(r for r in theirs if reproduces(r.answer) is bad_then)
    new = today[-1]
    good, bad = (new, old) if bad_then else (old, new)
    turn = "fixed between them" if bad_then else "a regression between them"
    bisect = command("bisect", script, "--package", framework, "--good", good.release, "--bad", bad.release)
    return f"{framework}: {said}: {turn}; `{bisect}` finds the release."
