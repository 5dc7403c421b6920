"""The one word a cell came to is the judge's (answer.verdict_of), carried in its glance: the report keys its
cells on it and titles them with the judge's phrase, where its script once worded both from the steps."""
from __future__ import annotations

from harness.judgement import answer


def test_the_deciding_steps_verdict_or_the_status_is_the_cells_word() -> None:
    steps = [{"label": "after_del", "verdict": "held", "left": 1 << 30}, {"label": "after_gc", "verdict": "cached",
                                                                          "left": 1 << 30},
             {"label": "exit_check", "verdict": "skipped"}]
    cell = {"status": "ok", "steps": steps, "exit": "returned"}
    assert answer.verdict_of(cell) == "cached" and answer.of_cell(cell).as_dict()["verdict"] == "cached"
    assert answer.verdict_of({"status": "crashed", "steps": []}) == "crashed"
    assert answer.verdict_of({"status": "ok", "steps": [], "exit": "not-returned"}) == "not-returned"
