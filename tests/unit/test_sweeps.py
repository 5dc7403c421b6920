"""Where a sweep marks a turn: a change of answer between neighbouring releases, never one made of
amounts at the edge of what is judged (a no-signal step, a loop too small to judge)."""
from __future__ import annotations

from typing import Any

from harness.reporting import sweeps


def _cell(back: str, verdict: str | None, loop: str | None = None, exit_only: bool = False) -> dict[str, Any]:
    steps = [{"label": "after_clear_session", "verdict": "no-signal" if exit_only else verdict}]
    word = "back at exit" if exit_only else verdict
    cell: dict[str, Any] = {"status": "ok", "steps": steps, "exit": "returned",
                            "glance": {"back": back, "word": word, "text": word}}
    if loop:
        cell["loop"] = {"state": loop}
    return cell


def _changes(*cells: dict[str, Any]) -> list[dict[str, Any]]:
    columns = [(f"1.{n}.0", f"pkg==1.{n}.0") for n in range(len(cells))]
    matrix = {"scenarios": ["s"], "cells": {"s": {env: cell for (_, env), cell in zip(columns, cells, strict=True)}}}
    return sweeps.changes(matrix, columns)


def test_a_turn_of_verdict_or_of_loop_growth_is_marked() -> None:
    (turn,) = _changes(_cell("all", "released"), _cell("all", "released"), _cell("none", "held"))
    assert (turn["before_release"], turn["release"], turn["between"]) == ("1.1.0", "1.2.0", [])
    (grows,) = _changes(_cell("none", "held", "flat"), _cell("none", "held", "grows"))
    assert grows["release"] == "1.1.0"


def test_amounts_at_the_edge_of_what_is_judged_mark_nothing() -> None:
    """A cleanup step too small to judge (the answer then comes from the exit alone) and a loop whose readings are
    too few or too scattered to call (unclear) compare with nothing. A loop whose growth is clear of the noise but
    under the meter's smallest change is a leak per iteration (rules 30): the growing side, as 'grows' is."""
    assert _changes(_cell("none", "held", "small"), _cell("all", "returned", "grows", exit_only=True),
                    _cell("none", "held", "grows")) == []
    assert _changes(_cell("none", "held", "flat"), _cell("none", "held", "unclear"), _cell("none", "held", "flat")) == []
    (turn,) = _changes(_cell("none", "held", "flat"), _cell("none", "held", "small"))
    assert turn["release"] == "1.1.0"


def test_a_turn_across_releases_without_a_comparable_answer_names_them() -> None:
    (turn,) = _changes(_cell("none", "held", "flat"), _cell("none", "held", "unclear"), {"status": "skipped"},
                       _cell("none", "held", "grows"))
    assert (turn["before_release"], turn["release"], turn["between"]) == ("1.0.0", "1.3.0", ["1.1.0", "1.2.0"])
    summary = {"package": "pkg", "from": "1.0.0", "to": "1.3.0", "every": "minor", "releases": [], "skipped": {},
               "changes": [turn]}
    assert "changed between 1.0.0 and 1.3.0 (no comparable answer in 1.1.0, 1.2.0)" in sweeps.markdown(summary)


def test_a_small_steady_difference_below_the_smallest_judged_change_is_a_candidate_and_repeats_decide() -> None:
    """A tf.function called 100,000 times: 58 MiB of host memory left on one release, 15 MiB on the
    next, both 'no signal' (under the 128 MiB RSS judges): a candidate, a turn once three runs of
    each side stand clear of each other, and nothing when they overlap."""
    from harness.judgement import amounts

    MiB = 1 << 20

    def cell(left: int) -> dict[str, Any]:
        return {"status": "ok", "steps": [{"label": "end", "verdict": "no-signal", "left": left, "meter": "rss"}],
                "glance": {"back": "all", "word": "no signal", "text": "no signal"}}

    columns = [("2.11.0", "tf==2.11.0"), ("2.12.0", "tf==2.12.0")]
    matrix = {"scenarios": ["s"], "cells": {"s": {"tf==2.11.0": cell(58 * MiB), "tf==2.12.0": cell(15 * MiB)}}}
    (found,) = amounts.candidates(matrix, columns)
    assert (found["before"], found["after"]) == (58 * MiB, 15 * MiB)
    clear = {"s|2.11.0": [57 * MiB, 58 * MiB, 60 * MiB], "s|2.12.0": [14 * MiB, 15 * MiB, 16 * MiB]}
    assert amounts.judge([found], clear)[0]["confirmed"] is True
    overlap = {"s|2.11.0": [20 * MiB, 58 * MiB, 60 * MiB], "s|2.12.0": [14 * MiB, 15 * MiB, 30 * MiB]}
    assert amounts.judge([found], overlap)[0]["confirmed"] is False
    noise = {"s": {"tf==2.11.0": cell(30 * MiB), "tf==2.12.0": cell(12 * MiB)}}  # 18 MiB apart: inside RSS's noise
    assert amounts.candidates({"scenarios": ["s"], "cells": noise}, columns) == []


def test_a_sweep_where_fewer_than_two_releases_ran_says_so_not_that_nothing_changed() -> None:
    """Three releases asked for, none made (no Python for them): nothing was compared. One made: it has
    nothing to be compared with. A turn needs two releases that ran."""
    columns = {f"torch=={r}": r for r in ("1.0.1", "1.4.0", "1.5.1")}
    summary: dict[str, Any] = {"package": "torch", "from": "1.0.1", "to": "1.5.1", "every": "minor",
                               "releases": list(columns.values()), "columns": columns, "changes": [],
                               "skipped": {pin: "no Python 3.7 here" for pin in columns}}
    text = sweeps.markdown(summary)
    assert "no answer changed" not in text
    assert text.endswith("Answer: no release ran: nothing was compared.\n")
    del summary["skipped"]["torch==1.5.1"]
    assert sweeps.answer_line(summary) == "Answer: only 1.5.1 ran: nothing to compare it with, so no turn can be found."
    summary["unfinished"] = {"torch==1.0.1": [3, 13]}  # resumed: 10 of its 13 cells ran, 1.4.0 finished earlier
    assert sweeps.releases_run(summary) == ["1.0.1", "1.4.0", "1.5.1"]
    assert sweeps.answer_line(summary) == "Answer: no answer changed across 1.0.1 .. 1.5.1."
    summary["unfinished"] = {"torch==1.0.1": [13, 13]}
    assert sweeps.answer_line(summary) == ("Answer: no answer changed across 1.4.0 .. 1.5.1 (the 2 of 3 releases "
                                           "that ran).")
    summary["skipped"] = {}  # a resumed part forgot the skip (jax[cuda12]==0.4.35): its cells still say none ran
    assert sweeps.releases_run(summary) == ["1.4.0", "1.5.1"]


def test_a_release_whose_every_cell_was_unsupported_ran_nothing() -> None:
    """jax[cuda12]==0.4.35 failing at `import jax` (judged unsupported in every cell) measured nothing: the
    sweep lists it with the cause and compares nothing, where it said "only 0.4.35 ran"."""
    why = "`import jax` failed in this environment (TypeError: ...)"
    matrix = {"scenarios": ["a", "b"], "cells": {s: {"jax==0.4.35": {"status": "unsupported", "error": why},
                                                     "jax==0.4.33": {"status": "ok"}} for s in ("a", "b")}}
    columns = [("0.4.33", "jax==0.4.33"), ("0.4.35", "jax==0.4.35")]
    assert sweeps.unfinished(matrix, columns) == {"jax==0.4.35": [2, 2]}
    matrix["cells"]["b"]["jax==0.4.35"] = {"status": "ok"}  # one cell measured: the release ran
    assert sweeps.unfinished(matrix, columns) == {}
