"""The search: fewest runs to the first bad release, skips, no turn, and each criterion's number."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version

from harness.common.errors import UsageError
from harness.judgement import criteria
from harness.running import bisection
from harness.store.results import load_record

MiB = 1024 * 1024
REPRO = Path(__file__).resolve().parents[1] / "data" / "records" / "repro"  # records of matrix/reference/h100-580.159.04-repro


def _record(left_mib: float, status: str = "ok") -> dict[str, Any]:
    """A repro record on RSS: start at 100 MiB, a cleanup checkpoint leaving ``left_mib`` more."""
    base = 100 * MiB
    return {"status": status, "pre_gpu": {"readings": {"rss": base, "nvml_process": None}},
            "checkpoints": [{"label": "start", "readings": {"rss": base, "nvml_process": None}},
                            {"label": "bug.py:9: del x", "readings": {"rss": base + int(left_mib * MiB), "nvml_process": None}},
                            {"label": "end", "readings": {"rss": base + int(left_mib * MiB), "nvml_process": None}}]}


def _versions(n: int) -> list[Version]:
    return [Version(f"1.{i}.0") for i in range(n)]


@pytest.mark.parametrize("boundary", [1, 5, 11, 15])
def test_finds_the_planted_boundary_in_fewer_runs_than_releases(boundary: int) -> None:
    versions, ran = _versions(16), []

    def run(version: Version) -> tuple[dict[str, Any] | None, str]:
        ran.append(version)
        return _record(300 if version >= versions[boundary] else 1), ""

    outcome = bisection.search(versions, criteria.Criterion(), run)
    assert outcome.first_bad == versions[boundary] and outcome.last_good == versions[boundary - 1]
    assert len(ran) <= 2 + 4 < len(versions)  # both ends, then log2(14) halvings
    assert len(set(ran)) == len(ran)


def test_a_release_that_cannot_run_is_stepped_over() -> None:
    versions = _versions(8)

    def run(version: Version) -> tuple[dict[str, Any] | None, str]:
        if version == versions[3]:
            return None, "no wheel for Linux x86_64"
        return _record(300 if version >= versions[4] else 0), ""

    outcome = bisection.search(versions, criteria.Criterion(), run)
    assert outcome.first_bad == versions[4]
    skipped = [s for s in outcome.steps if s.bad is None]
    assert [s.version for s in skipped] == [versions[3]] and "no wheel" in bisection.table(outcome, criteria.Criterion())


def test_no_turn_between_the_ends_is_said_and_not_searched() -> None:
    versions, ran = _versions(6), []

    def run(version: Version) -> tuple[dict[str, Any] | None, str]:
        ran.append(version)
        return _record(10), ""

    outcome = bisection.search(versions, criteria.Criterion(), run)
    assert outcome.first_bad is None and outcome.answer.startswith("no turn") and len(ran) == 2


def test_the_threshold_decides() -> None:
    versions = _versions(4)
    crit = criteria.Criterion.make("left", 512, None)
    outcome = bisection.search(versions, crit, lambda v: (_record(300 if v >= versions[2] else 0), ""))
    assert outcome.first_bad is None  # 300 MiB more is under a 512 MiB threshold


def test_growth_is_the_slope_of_a_looped_checkpoint_on_a_real_gpu_record() -> None:
    record = load_record(next((REPRO / "torch_model_loop" / "host-python3").glob("*.json.gz")))
    growth = criteria.measure(record, criteria.Criterion.make("growth", None, None))
    assert growth.meter == "nvml_process" and growth.value == 20 * MiB  # H100: 20 MiB kept per iteration
    left = criteria.measure(record, criteria.Criterion())
    assert left.where == "torch_model_loop.py:11: torch.cuda.empty_cache()#30" and left.value is not None
    peak = criteria.measure(record, criteria.Criterion.make("peak", None, None))
    assert peak.value is not None and peak.value >= left.value
    label = criteria.measure(record, criteria.Criterion.make("label", None, "del model#5"))
    assert label.where == "torch_model_loop.py:10: del model#5"


def test_criteria_are_checked() -> None:
    with pytest.raises(UsageError, match="unknown criterion"):
        criteria.Criterion.make("speed", None, None)
    with pytest.raises(UsageError, match="needs --label"):
        criteria.Criterion.make("label", None, None)
    assert "64.00 MiB" in criteria.Criterion.make("left", None, None).describe()


def test_a_fix_is_said_as_a_fix() -> None:
    """--good 2.4.0 --bad 2.3.0 asks where it was fixed: 'fixed in 2.4.0 (last bad: 2.3.1)', never
    'first bad: 2.3.1 (last good: 2.4.0)'."""
    versions = [Version("2.4.0"), Version("2.3.1"), Version("2.3.0")]  # good end first, as bisect orders them

    def run(version: Version) -> tuple[dict[str, Any] | None, str]:
        return _record(1 if version >= Version("2.4.0") else 300), ""

    outcome = bisection.search(versions, criteria.Criterion(), run)
    assert outcome.answer == "fixed in 2.4.0 (last bad: 2.3.1)"


def test_a_fix_given_the_other_way_round_is_still_found_and_worded_as_a_fix() -> None:
    """--good 2.3.0 --bad 2.4.0 where 2.4.0 is the better one (the labels swapped, or the question
    asked as a regression): the same turn is searched from the better end and said as what it is."""
    versions = [Version("2.3.0"), Version("2.3.1"), Version("2.3.2"), Version("2.4.0")]  # as given: good end first

    def run(version: Version) -> tuple[dict[str, Any] | None, str]:
        return _record(1 if version >= Version("2.3.2") else 300), ""

    outcome = bisection.search(versions, criteria.Criterion(), run)
    assert outcome.answer.startswith("fixed in 2.3.2 (last bad: 2.3.1); --good 2.3.0 and --bad 2.4.0 were the other way round")
    assert (outcome.first_bad, outcome.last_good) == (Version("2.3.1"), Version("2.3.2"))
    assert {str(s.version): s.bad for s in outcome.steps} == {"2.3.0": True, "2.4.0": False, "2.3.1": True, "2.3.2": False}
    flat = bisection.search(versions, criteria.Criterion(), lambda v: (_record(300), ""))
    assert flat.answer.startswith("no turn")  # equal ends: nothing to search, whichever way round
