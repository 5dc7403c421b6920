"""Verdict rules on readings the harness made: the H200 reference records and a local RSS run."""
from __future__ import annotations

import copy
from pathlib import Path

import pytest

from harness.judgement import verdicts
from harness.store.results import load_record

# matrix/reference/h200-580.159.04's records
REFERENCE = Path(__file__).resolve().parents[1] / "data" / "records" / "h200-host-python3"
GiB = 1024**3


def _record(name: str) -> dict:
    return dict(load_record(REFERENCE / f"torch__{name}.json.gz"))


def _steps(record: dict) -> dict[str, str]:
    return {s["label"]: s["verdict"] for s in verdicts.judge(record)["steps"]}


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("del_gc_empty_cache", {"after_del": "cached", "after_gc": "cached", "after_empty_cache": "released"}),
        ("reference_cycle", {"after_del": "held", "after_gc": "cached", "after_empty_cache": "released"}),
        ("loss_graph_kept", {"after_del_model_keep_loss": "held", "after_del_loss_keep_detached": "cached",
                             "after_empty_cache": "released"}),
        ("child_process", {"after_child_exit": "released"}),
    ],
)
def test_reference_records_judge_as_measured(name: str, expected: dict[str, str]) -> None:
    record = _record(name)
    assert _steps(record) == expected
    assert verdicts.judge(record)["exit"]["verdict"] == "returned"


def test_process_meter_is_primary_when_nvml_has_it() -> None:
    judged = verdicts.judge(_record("del_gc_empty_cache"))
    assert {s["meter"] for s in judged["steps"]} == {"nvml_process"}
    assert judged["steps"][0]["grown"] >= 4 * GiB


def test_without_framework_view_a_kept_allocation_is_held() -> None:
    record = _record("del_no_empty_cache")
    for cp in record["checkpoints"]:
        cp["view"] = {}
    assert _steps(record) == {"after_del": "held", "after_gc": "held"}


def test_half_returned_is_partial() -> None:
    record = _record("del_gc_empty_cache")
    floor, peak, after = (record["checkpoints"][i]["readings"] for i in (0, 1, 4))
    after["nvml_process"] = (floor["nvml_process"] + peak["nvml_process"]) // 2
    record["checkpoints"][4]["view"] = {}  # the framework cannot say: the driver decides
    assert _steps(record)["after_empty_cache"] == "partial"


def test_tiny_growth_is_no_signal() -> None:
    record = _record("del_gc_empty_cache")
    floor = record["checkpoints"][0]
    record["checkpoints"][1]["readings"] = copy.deepcopy(floor["readings"])
    record["checkpoints"][1]["view"] = copy.deepcopy(floor["view"])  # the framework saw no growth either
    assert set(_steps(record).values()) == {"no-signal"}


def test_without_nvml_the_rss_meter_decides() -> None:
    record = _record("loss_graph_kept")
    for cp in record["checkpoints"]:
        cp["readings"]["nvml_process"] = cp["readings"]["nvml_device"] = None
    judged = verdicts.judge(record)
    assert {s["meter"] for s in judged["steps"]} == {"rss"}


def test_device_not_back_after_exit_is_not_returned() -> None:
    record = _record("plain_exit")
    record["after_exit"]["readings"]["nvml_device"] += 2 * GiB
    assert verdicts.judge(record)["exit"]["verdict"] == "not-returned"


def test_a_skipped_step_is_never_judged() -> None:
    record = _record("del_gc_empty_cache")
    record["checkpoints"][4]["skipped"] = "no CUDA device"
    assert _steps(record)["after_empty_cache"] == "skipped"


@pytest.mark.parametrize("grown_mib", [113, 121.96, 127.2, 128, 130.1, 143])
def test_growth_at_the_edge_of_the_meter_reads_borderline_either_side(grown_mib: float) -> None:
    """TF 2.7's placeholder_training_reset on a CPU grew 127.2 MiB in one run (no signal) and 130.1 MiB in
    the next (held): within the meter's noise of its 128 MiB floor, both runs say no signal, borderline."""
    record = _record("loss_graph_kept")
    for cp in record["checkpoints"]:
        cp["readings"]["nvml_process"] = cp["readings"]["nvml_device"] = None
        cp["view"] = {}
    floor, peak = (record["checkpoints"][i]["readings"] for i in (0, 1))
    peak["rss"] = floor["rss"] + int(grown_mib * 1024 * 1024)
    for cp in record["checkpoints"][2:]:
        cp["readings"]["rss"] = floor["rss"] + 60 * 1024 * 1024
    steps = verdicts.judge(record)["steps"]
    assert {s["verdict"] for s in steps} == {"no-signal"}
    assert {s["word"] for s in steps} == {f"no signal: {grown_mib:.2f} MiB grown, borderline with the 128.00 MiB floor"}


def test_growth_clear_of_the_edge_is_judged_or_no_signal_without_borderline() -> None:
    record = _record("loss_graph_kept")
    for cp in record["checkpoints"]:
        cp["readings"]["nvml_process"] = cp["readings"]["nvml_device"] = None
        cp["view"] = {}
    floor, peak = (record["checkpoints"][i]["readings"] for i in (0, 1))
    for grown, verdict in ((100, "no-signal"), (150, "held")):
        peak["rss"] = floor["rss"] + grown * 1024 * 1024
        for cp in record["checkpoints"][2:]:
            cp["readings"]["rss"] = peak["rss"]
        steps = verdicts.judge(record)["steps"]
        assert {s["verdict"] for s in steps} == {verdict} and not any("word" in s for s in steps)
