"""Three full CPU matrix runs (`nox -s matrix` from fresh clones on a 2-core machine without a GPU,
2026-11-27; 81 cells each): the judge gives every cell the same word in all three. Their records
are kept whole but for the timeline and the output tails (tests/data/cpu-runs/)."""
from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from harness.judgement import verdicts
from harness.judgement.cell import judge_cell

RUNS = Path(__file__).resolve().parents[1] / "data" / "cpu-runs"
MiB = 1024 * 1024


def _records(name: str) -> dict[str, Any]:
    return dict(json.loads(gzip.decompress((RUNS / f"{name}.json.gz").read_bytes())))


def _answers(name: str) -> dict[str, tuple[str, str, str | None]]:
    """Each cell's answer by today's judge: its colour, its word (without the amounts), its loop's trend."""
    out = {}
    for key, record in _records(name).items():
        record["verdicts"] = verdicts.judge(record)
        glance = judge_cell(record)["glance"]
        out[key] = (glance["back"], glance["word"].split(":")[0], (glance.get("loop") or {}).get("state"))
    return out


@pytest.mark.parametrize(("one", "other"), [("run-a", "run-b"), ("run-a", "run-c"), ("run-b", "run-c")])
def test_full_cpu_runs_give_every_cell_the_same_word(one: str, other: str) -> None:
    first, second = _answers(one), _answers(other)
    assert len(first) == len(second) == 81 and first.keys() == second.keys()
    assert [(key, first[key], second[key]) for key in first if first[key] != second[key]] == []


def test_the_pair_holds_readings_either_side_of_the_lines_they_are_judged_by() -> None:
    """What could make them differ is in the records: TF 2.7's gradient_tape_del left 79.5 MiB in one
    run and 50.4 MiB in the other (released at or under 64 MiB); its placeholder_training_reset grew
    122.0 and 116.5 MiB (judged from 128 MiB; 127.2 and 130.1 MiB on an earlier pair): each reads
    borderline in both (the first a partial on both: not released in one run and partly held in the
    other; the second no signal on both)."""
    def step(name: str, key: str, label: str) -> dict[str, Any]:
        judged = verdicts.judge(_records(name)[key])
        return next(s for s in judged["steps"] if s["label"] == label)

    left = sorted(step(run, "tf2.7/tf2__gradient_tape_del", "after_clear_session")["left"] / MiB for run in ("run-a", "run-b"))
    assert left[0] < 64 < left[1]
    for run in ("run-a", "run-b"):
        tape = step(run, "tf2.7/tf2__gradient_tape_del", "after_clear_session")
        assert tape["verdict"] == "partial" and tape["word"].startswith("borderline: ")
        reset = step(run, "tf2.7/tf1__placeholder_training_reset", "after_close")
        assert reset["verdict"] == "no-signal" and reset["word"].startswith("no signal: ") and "borderline" in reset["word"]


def test_a_borderline_cell_is_its_own_answer_in_its_own_colour_and_never_a_turn() -> None:
    """TF 2.7's gradient_tape_del left 79.5 MiB in one run and 50.4 MiB in the other, against a release line of
    64 MiB: amber beside "released at or under 64 MiB" said part back where the reading cannot tell. Both runs now
    answer "borderline", in a colour of its own (neither amber nor the grey of no signal), and a turn compares
    neither side of it."""
    from harness.judgement import palette, turns

    for run in ("run-a", "run-b"):
        record = _records(run)["tf2.7/tf2__gradient_tape_del"]
        record["verdicts"] = verdicts.judge(record)
        cell = judge_cell(record)
        assert (cell["glance"]["back"], cell["glance"]["colour"]) == ("borderline", "blue")
        assert palette.of_back("borderline").fill not in (palette.of_back("part").fill, palette.of_back("n/a").fill)
        assert (turns.parts(cell) or (None, None))[:2] == (None, None)
