"""Where an answer turns: the judge's one rule (judgement/turns.py), as a sweep and the atlas apply it.

A release where the scenario fails (TF 2.5's "No allocator statistics", 2.6's segfault under
TF_GPU_ALLOCATOR=cuda_malloc_async) and a neighbour where it runs are a turn; two failures are not;
a release that measured nothing (skipped, a build the GPU cannot run) neither turns nor breaks a lane."""
from __future__ import annotations

from typing import Any

from harness.judgement import turns
from harness.reporting import sweeps
from harness.reporting.atlas import Cell
from harness.reporting.atlas_answers import turn_points
from harness.reporting.atlas_pages import changes


def _ok(back: str = "none", text: str = "cached in the pool: 1.00 GiB") -> dict[str, Any]:
    return {"status": "ok", "glance": {"back": back, "text": text}, "steps": [{"label": "end", "verdict": "cached"}]}


def _failed(status: str, error: str) -> dict[str, Any]:
    return {"status": status, "error": error, "glance": {"back": "n/a", "text": status}, "steps": []}


SKIPPED = {"status": "skipped", "glance": {"back": "n/a", "text": "skipped"}, "steps": []}


def test_failing_then_running_is_a_turn_of_its_own_kind() -> None:
    said = [("2.5.3", turns.parts(_failed("error", "InternalError: No allocator statistics"))),
            ("2.6.5", turns.parts(_failed("crashed", "Crashed: killed by signal 11"))),
            ("2.7.4", turns.parts(SKIPPED)),
            ("2.8.4", turns.parts(_ok())),
            ("2.12.1", turns.parts(_ok()))]
    assert turns.points(said) == [("2.8.4", "2.6.5", True)]  # error -> crashed: both fail, no turn


def test_a_failure_between_two_answers_does_not_hide_their_turn() -> None:
    said = [("1", turns.parts(_ok("all", "released"))), ("2", turns.parts(_failed("timeout", "Timeout"))),
            ("3", turns.parts(_ok()))]
    # at 3 it runs again and its answer differs from 1's: the turn reaches back to 1, across the failure
    assert turns.points(said) == [("2", "1", True), ("3", "1", True)]
    assert turns.points([said[0], said[2]]) == [("3", "1", False)]


def test_held_without_the_frameworks_count_turns_only_on_what_came_back() -> None:
    """TensorFlow 2.4 has no memory count: its pool, mapped at the first touch, is "held by the process" where
    2.7 with a count says "cached in the pool". No turn there; one where what came back differs."""
    uncounted = {"status": "ok", "glance": {"back": "none", "text": "held by the process: 74.71 GiB"},
                 "steps": [{"label": "after_del", "verdict": "held", "framework_left": None}]}
    counted_live = {"status": "ok", "glance": {"back": "none", "text": "held by live objects: 2.00 GiB"},
                    "steps": [{"label": "after_del", "verdict": "held", "framework_left": 2 << 30}]}
    said = [("2.4.4", turns.parts(uncounted)), ("2.7.4", turns.parts(_ok())), ("2.9.3", turns.parts(counted_live))]
    assert turns.points(said) == [("2.9.3", "2.7.4", False)]  # counted: cached -> live is a turn
    assert turns.points([("2.4.4", turns.parts(uncounted)), ("2.5.3", turns.parts(_ok("all", "released")))]) == [
        ("2.5.3", "2.4.4", False)]


def test_a_sweep_names_the_failure_and_where_it_first_ran() -> None:
    columns = [("2.5.3", "tf==2.5.3"), ("2.6.5", "tf==2.6.5"), ("2.8.4", "tf==2.8.4")]
    matrix = {"scenarios": ["tf2/cuda_malloc_async"], "cells": {"tf2/cuda_malloc_async": {
        "tf==2.5.3": _failed("error", "InternalError: No allocator statistics"),
        "tf==2.6.5": _failed("crashed", "Crashed: killed by signal 11"), "tf==2.8.4": _ok()}}}
    [change] = sweeps.changes(matrix, columns)
    assert (change["release"], change["before_release"], change["kind"]) == ("2.8.4", "2.6.5", "runs")
    assert change["before"] == "crashed (Crashed: killed by signal 11)"
    assert change["after"] == "cached in the pool: 1.00 GiB"
    summary = {"package": "tensorflow", "from": "2.5.3", "to": "2.8.4", "every": "minor", "skipped": {},
               "releases": [r for r, _ in columns], "columns": {pin: r for r, pin in columns}, "changes": [change]}
    assert sweeps.answer_line(summary) == "Answer: 1 turn: `tf2/cuda_malloc_async` in 2.8.4."


def _cell(release: str, status: str = "ok", back: str = "none", word: str = "cached in the pool") -> Cell:
    said = turns.parts(_ok(back, word) if status == "ok" else _failed(status, "boom"))
    return Cell(run=f"run-{release}", env=f"tf=={release}", report_key="k", technique="tf2/cuda_malloc_async",
                family="tf2", framework="tensorflow", release=release, hardware="H200", driver="580", backend="venv",
                image="", definition_hash="", python="3.8", cuda="11.8", status=status, back=back, word=word, date="",
                steps=(), record_hash=f"hash-{release}", compared=said or ())


def test_the_atlas_turns_where_a_release_first_runs_and_counts_the_failed_run() -> None:
    row = {f"tensorflow {r} · H200": [_cell(r, status)] for r, status in
           (("2.5.3", "error"), ("2.6.5", "crashed"), ("2.8.4", "ok"), ("2.12.1", "ok"))}
    cols = list(row)
    assert turn_points(row, cols) == [("tensorflow 2.8.4 · H200", "tensorflow 2.6.5 · H200")]
    [change] = changes({"tf2/cuda_malloc_async": row}, cols)
    assert (change.before.status, change.before_runs, change.after.release) == ("crashed", 1, "2.8.4")


def test_a_sweeps_turn_stands_on_three_agreeing_runs_a_side_and_repeats_that_disagree_unmake_it() -> None:
    """A change of answer found in one run of each side is a candidate; with its repeats (repeats/) it is named
    once three runs a side agree, and no turn where a run of one side gave the other side's answer."""
    columns = [("2.13.1", "tf==2.13.1"), ("2.14.1", "tf==2.14.1")]
    released, cached = _ok("all", "released"), _ok()
    matrix = {"scenarios": ["tf2/loop"], "cells": {"tf2/loop": {"tf==2.13.1": released, "tf==2.14.1": cached}}}
    summary = {"package": "tensorflow", "from": "2.13.1", "to": "2.14.1", "every": "minor", "skipped": {},
               "releases": [r for r, _ in columns], "columns": {pin: r for r, pin in columns}}

    sweeps.judge(summary, matrix, {})
    [change] = summary["changes"]
    assert (change["standing"], change["runs_each"]) == ("candidate", [1, 1])
    assert "candidate turn: 1 run before, 1 after (3 each confirm it)" in sweeps.markdown(summary)
    assert sweeps.answer_line(summary) == ("Answer: 1 candidate turn (fewer than 3 runs a side agree): `tf2/loop` "
                                           "in 2.14.1.")

    agreeing = {("tf==2.13.1", "tf2/loop"): [released, released], ("tf==2.14.1", "tf2/loop"): [cached, cached]}
    sweeps.judge(summary, matrix, agreeing)
    [change] = summary["changes"]
    assert (change["standing"], change["runs_each"]) == ("confirmed", [3, 3])
    assert sweeps.answer_line(summary) == "Answer: 1 turn: `tf2/loop` in 2.14.1."

    flaky = {("tf==2.13.1", "tf2/loop"): [released, cached], ("tf==2.14.1", "tf2/loop"): [cached, cached]}
    sweeps.judge(summary, matrix, flaky)
    assert summary["changes"] == [] and [c["runs_each"] for c in summary["unsettled"]] == [[2, 3]]
    assert "no turn, the runs disagree" in sweeps.markdown(summary)
    assert sweeps.answer_line(summary) == ("Answer: no answer changed across 2.13.1 .. 2.14.1; 1 change of answer not "
                                           "named: the runs of a side disagree (`tf2/loop` in 2.14.1).")
