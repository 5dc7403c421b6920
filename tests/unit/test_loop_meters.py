"""A loop is judged on every meter that can see it: TensorFlow on an H200 maps its whole pool at the
first touch, so NVML stays flat while Keras models pile up in TensorFlow's own in-use count."""
from __future__ import annotations

import copy
from pathlib import Path

from harness.judgement import answer, loops, verdicts
from harness.judgement.cell import judge_cell
from harness.reporting import repro_md
from harness.store.results import load_record

# h200-580.159.04-docker-gpus
RECORD = Path(__file__).resolve().parents[1] / "data" / "records" / "h200-docker-tf-current" / "tf2__keras_models_in_loop.json.gz"


def test_a_loop_flat_on_nvml_and_growing_in_the_frameworks_count_grows() -> None:
    record = load_record(RECORD)
    meter = verdicts.measured_meter(record)
    assert loops.steepest(record, meter)[2].state == "flat"  # NVML: the pool was mapped before the loop
    line = loops.summary(record, meter)
    assert line is not None and line["state"] == "grows" and line["meter"] == loops.FRAMEWORK
    assert "in the framework's own in-use count; nvml process flat" in line["text"]
    cell = judge_cell(record)
    assert "in the loop: grows" in cell["glance"]["text"]  # the answer every output shows says so
    assert cell["glance"]["colour"] != answer.Colour.GREEN.value
    assert any("the framework's own in-use count grows" in text for text in repro_md.loop_lines(record))


def test_a_loop_flat_on_both_stays_flat() -> None:
    record = load_record(RECORD)
    flat = copy.deepcopy(record)
    for cp in flat["checkpoints"]:
        for view in (cp.get("view") or {}).values():
            if view.get("in_use") is not None:
                view["in_use"] = 60 * 2**20  # the same count every iteration
    line = loops.summary(flat, verdicts.measured_meter(flat))
    assert line is not None and line["state"] == "flat" and line["meter"] != loops.FRAMEWORK


def test_bisects_growth_criterion_reads_the_frameworks_count_where_nvml_is_blind() -> None:
    """bisect --criterion growth answers as repro's loop line does: the H200's keras loop grows in
    TensorFlow's own count (NVML flat), and the same loop with a flat count is no growth."""
    from harness.judgement import criteria

    record = load_record(RECORD)
    criterion = criteria.Criterion.make("growth", 0.5, None)
    grows = criteria.measure(record, criterion)
    assert grows.meter == loops.FRAMEWORK and grows.value is not None and grows.value > criterion.threshold
    flat = copy.deepcopy(record)
    for cp in flat["checkpoints"]:
        for view in (cp.get("view") or {}).values():
            if view.get("in_use") is not None:
                view["in_use"] = 60 * 2**20
    assert criteria.measure(flat, criterion).value == 0


def test_two_readings_make_no_trend() -> None:
    """A loop of two iterations (a TorchScript model moved to the GPU twice) grew 612 MiB between them:
    a line through two points, never "grows"; three readings of the same growth do."""
    from harness.judgement import loops as trend_rules

    two = trend_rules.trend([(1, 518 << 20), (2, 1130 << 20)], "nvml_process")
    assert (two.state, two.growing) == ("twice", False)
    assert two.text() == ("ran twice (+612.00 MiB from the first reading to the second): two readings make no trend, "
                          "three or more are needed")
    three = trend_rules.trend([(1, 518 << 20), (2, 1130 << 20), (3, 1742 << 20)], "nvml_process")
    assert (three.state, three.growing) == ("grows", True)
