"""Amounts are answers too: a row whose words stay the same ("held") while what is left changes
several-fold between neighbouring releases (0.63 GiB in one, 6.23 GiB in the next) has turned.

Such a turn is a candidate until repeats of both sides say it stands clear of their spread: every
run of one side left less than every run of the other. A sweep repeats its candidates before it
answers (``--repeat N``, 3 by default; the largest few) and keeps each side's amounts, so a re-render
judges them again.
"""
from __future__ import annotations

from collections.abc import Collection
from typing import Any

from harness.common.units import human_bytes
from harness.judgement import tolerances
from harness.judgement.answer import decisive_step
from harness.model.judged import Candidate, CellSummary, Change, MatrixDoc
from harness.model.record import Status

FACTOR = 2.0  # what is left must differ at least this many times over to be a candidate
# ... and by more than half the meter's noise floor: below its smallest judged change too, since only
# repeats that stand clear of each other make a candidate a turn (15 MiB against 58 MiB left, steady)
CANDIDATE_FROM = 0.5


def amount(cell: CellSummary | None) -> tuple[int, str] | None:
    """(bytes left at the decisive cleanup step, its meter) of a cell that measured one."""
    if not cell or cell.get("status") != Status.OK:
        return None
    steps = cell.get("steps") or []
    # no measured step: the last one too small to judge alone still says what was left (repeats decide)
    step = decisive_step(steps) or next(
        (s for s in reversed(steps) if s.get("verdict") == "no-signal" and s.get("left") is not None), None)
    left, meter = (step.get("left"), step.get("meter")) if step is not None else (None, None)
    if left is None or meter not in tolerances.METER_RULES:
        return None
    return max(0, int(left)), str(meter)


def key(scenario: str, release: str) -> str:
    return f"{scenario}|{release}"


def candidates(matrix: MatrixDoc, columns: list[tuple[str, str]],
               turned: Collection[tuple[str, str]] = ()) -> list[Candidate]:
    """Neighbouring measured releases of a row with the same words but amounts FACTOR apart and more
    than half the meter's noise floor apart (repeats decide whether they are a turn); none where the answer
    already turns there (``turned``: (scenario, release) of the plain turns), which repeats need not confirm."""
    found: list[Candidate] = []
    for scenario in matrix["scenarios"]:
        row = matrix["cells"].get(scenario, {})
        last: dict[str, Any] | None = None
        for release, env in columns:
            now = amount(row.get(env))
            if now is None:
                continue
            words = str(row[env]["glance"]["word"])
            if last is not None and last["words"] == words and last["meter"] == now[1]:
                low, high = sorted((int(last["left"]), now[0]))
                if (high - low > CANDIDATE_FROM * tolerances.METER_RULES[now[1]].abs_tol and high >= FACTOR * max(low, 1)
                        and (scenario, release) not in turned):
                    found.append({"scenario": scenario, "before_release": last["release"], "release": release,
                                  "before_env": last["env"], "env": env, "before": last["left"], "after": now[0],
                                  "meter": now[1], "words": words})
            last = {"release": release, "env": env, "left": now[0], "meter": now[1], "words": words}
    return found


def ratio(cand: Candidate) -> float:
    """How many times over what is left changed between a candidate's two sides."""
    return float(max(cand["before"], cand["after"]) / max(min(cand["before"], cand["after"]), 1))


def judge(found: list[Candidate], repeats: dict[str, list[int]]) -> list[Candidate]:
    """Each candidate with ``confirmed``: True when every repeat of one side left less than every
    repeat of the other, False when their spreads overlap, None when a side has a single run."""
    out = []
    for cand in found:
        before = repeats.get(key(cand["scenario"], cand["before_release"])) or [cand["before"]]
        after = repeats.get(key(cand["scenario"], cand["release"])) or [cand["after"]]
        runs = min(len(before), len(after))
        if runs < 2:
            verdict = None
        else:
            verdict = max(before) < min(after) if cand["after"] > cand["before"] else max(after) < min(before)
        judged = cand.copy()
        judged["runs"], judged["confirmed"] = runs, verdict
        judged["spread_before"], judged["spread_after"] = [min(before), max(before)], [min(after), max(after)]
        out.append(judged)
    return out


def as_changes(judged: list[Candidate]) -> list[Change]:
    """The confirmed amount turns as sweep changes (the report marks them like any other)."""
    return [{"scenario": c["scenario"], "env": c["env"], "release": c["release"], "before_release": c["before_release"],
             "between": [], "kind": "amount", "runs": c["runs"],
             "before": f"{c['words']}, {human_bytes(c['before'])} left", "after": f"{c['words']}, {human_bytes(c['after'])} left"}
            for c in judged if c["confirmed"]]


def lines(judged: list[Candidate]) -> list[str]:
    """sweep.md's lines for the amounts: confirmed, not clear of the spread, or not repeated yet."""
    out = []
    for c in judged:
        head = (f"- `{c['scenario']}` kept its words ({c['words']}) but what is left went from "
                f"{human_bytes(c['before'])} in {c['before_release']} to {human_bytes(c['after'])} in {c['release']} "
                + (f"({ratio(c):.1f}x)" if min(c["before"], c["after"]) else "(one side nothing)"))
        spread = (f"{human_bytes(c['spread_before'][0])}..{human_bytes(c['spread_before'][1])} against "
                  f"{human_bytes(c['spread_after'][0])}..{human_bytes(c['spread_after'][1])}")
        if c["confirmed"] is None:
            out.append(head + ": one run each side (asked with --repeat 1, or beyond the candidates a sweep repeats by "
                       "itself); a sweep of these two releases with `--repeat 3` confirms or drops it")
        elif c["confirmed"]:
            out.append(head + f": a turn, {c['runs']} runs of each side clear of each other ({spread})")
        else:
            out.append(head + f": not a turn, {c['runs']} runs of each side overlap ({spread})")
    return out
