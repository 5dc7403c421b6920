"""What the judge makes of a record, as types: one judged step (``Step``), as verdicts.py writes it into a
record's ``verdicts`` and every output reads it. Data only: the judging is judgement/'s."""
from __future__ import annotations

from typing import Any

from typing_extensions import Required, TypedDict


class Step(TypedDict, total=False):
    """One cleanup step judged: what was left of what the scenario grew, on which meter, and why. A cell
    summary's copy (aggregate.STEP_KEYS) has every key, None where the judge wrote none."""

    label: Required[str]
    verdict: Required[str]  # released / cached / held / partial / no-signal / unmeasured / skipped
    meter: str | None
    grown: int | None  # bytes the scenario grew from its floor to its peak (its own process; others apart)
    left: int | None  # bytes still above the floor here
    tol: int | None  # what "released" allows at most
    framework_left: int | None  # the framework's own in-use count above its floor
    framework_grown: int | None
    word: str  # the judge's word where the verdict alone would mislead ("borderline: ...", "n/a: ...")
    reason: str  # a skipped step's: why it means nothing here
    detail: str  # the step in words (sentences.detail)
    pool: int | None  # what is left, split where the framework reports its pool (attribution.split_own)
    live: int | None
    runtime_growth: int | None
    elsewhere: int | None  # held by another process the script started
    elsewhere_processes: list[dict[str, Any]]
    judged_alone: bool  # a launcher's rank, judged on its own process and GPU (ranks.py)
