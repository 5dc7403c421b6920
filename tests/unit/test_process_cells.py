"""Real cells through the process backend: each outcome becomes the right record, nothing is left."""
from __future__ import annotations

import io
import os
import sys
import time
from pathlib import Path

from helpers import processes_with

from harness.judgement import tolerances
from harness.measurement import procs

MiB = 1024 * 1024


def test_rss_meter_sees_the_rise_and_the_fall(run_scenario) -> None:
    record = run_scenario("alloc_free")
    assert record["status"] == "ok", record["error"]
    by_label = {cp["label"]: cp["readings"]["rss"] for cp in record["checkpoints"]}
    assert list(by_label) == ["ready", "peak", "after_del"]
    assert record["pre_gpu"]["readings"]["rss"] <= by_label["ready"]  # taken before the scenario ran
    rise = by_label["peak"] - by_label["ready"]
    fall = by_label["peak"] - by_label["after_del"]
    tol = tolerances.tolerance(rise)
    assert abs(rise - 512 * MiB) <= tol, f"peak rose {rise / MiB:.0f} MiB, expected ~512"
    assert abs(fall - 512 * MiB) <= tol, f"free dropped {fall / MiB:.0f} MiB, expected ~512"
    step = record["verdicts"]["steps"][0]
    assert (step["label"], step["meter"], step["verdict"]) == ("after_del", "rss", "released")
    assert record["verdicts"]["exit"]["verdict"] == "returned"
    assert all(cp["settle"]["settled"] for cp in record["checkpoints"])


def test_timeline_samples_at_least_50_hz_and_sees_the_peak(run_scenario) -> None:
    record = run_scenario("alloc_free")
    timeline = record["timeline"]
    assert timeline["rate_hz"] is not None and timeline["rate_hz"] >= 50
    peak_rss = max(s[1] for s in timeline["samples"] if s[1] is not None)
    assert peak_rss >= record["checkpoints"][1]["readings"]["rss"] - 8 * MiB


def test_a_raising_scenario_is_an_error_with_its_traceback(run_scenario) -> None:
    record = run_scenario("raises")
    assert record["status"] == "error"
    assert record["error"]["type"] == "ValueError"
    assert "scenario bug on purpose" in record["error"]["traceback"]
    assert "raises.py" in record["error"]["traceback"]
    assert [cp["label"] for cp in record["checkpoints"]] == ["ready"]
    assert record["exit_code"] == 0


def test_a_hard_exit_is_a_crash_with_its_exit_code(run_scenario) -> None:
    record = run_scenario("hard_exit")
    assert record["status"] == "crashed"
    assert record["exit_code"] == 3
    assert "exit code 3" in record["error"]["message"]
    assert record["after_exit"]["processes_left"] == []


def test_a_hang_is_killed_at_its_timeout_with_its_escaped_child(run_scenario, tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    started = time.monotonic()
    record = run_scenario("hangs", timeout=3, params={"pidfile": str(pidfile)})
    assert time.monotonic() - started < 20
    assert record["status"] == "timeout"
    assert "last seen: ready" in record["error"]["message"]
    child = int(pidfile.read_text())
    assert not procs.alive(child), "the child in its own session survived the timeout"
    assert not procs.alive(record["agent"]["pid"])
    assert record["after_exit"]["processes_left"] == []


def test_protocol_looking_junk_is_output_not_protocol(run_scenario) -> None:
    record = run_scenario("junk_output")
    assert record["status"] == "ok", record["error"]
    assert [cp["label"] for cp in record["checkpoints"]] == ["ready", "after_junk"]
    assert "forged" in record["stderr_tail"] and "some stderr noise" in record["stderr_tail"]


def test_a_missing_api_is_unsupported_not_an_error(run_scenario) -> None:
    record = run_scenario("missing_api")
    assert record["status"] == "unsupported"
    assert "this_api_does_not_exist" in record["error"]["message"]
    declared = run_scenario("declares_unsupported")
    assert declared["status"] == "unsupported"
    assert declared["error"]["message"] == "set_memory_growth needs TF >= 2.0"


def test_a_kernel_without_code_for_the_gpu_is_unsupported_and_said_so(run_scenario) -> None:
    record = run_scenario("no_kernel_image")
    assert record["status"] == "unsupported"
    assert record["error"]["message"] == ("this build has no code for this GPU for a kernel it called: cuda runtime "
                                          "error (8) : invalid device function at /pytorch/aten/src/THC/THCGeneral.cpp:405")


def test_no_agent_process_is_left_after_the_cells() -> None:
    agent = str(Path(__file__).resolve().parents[2] / "harness" / "agent" / "agent.py")
    assert processes_with(agent) == []
    assert os.getpid() > 0


def test_a_scenario_the_agent_cannot_read_is_a_harness_error(run_scenario, tmp_path: Path) -> None:
    """The harness failing a cell (here: the scenario file gone between planning and the run)
    is told apart from the scenario's own error."""
    from harness.measurement import scenario
    from harness.measurement.backends.process import ProcessBackend
    from harness.measurement.nvml import Nvml
    from harness.measurement.runner import CellOptions, run_cell

    copy = tmp_path / "vanishing.py"
    copy.write_text((Path(__file__).parents[1] / "scenarios" / "alloc_free.py").read_text())
    spec = scenario.load(copy)
    copy.unlink()
    options = CellOptions(run_id="t", run_dir=tmp_path, env_name="local", env_facts={}, params={})
    record = run_cell(ProcessBackend(python=sys.executable), spec, options, Nvml.open())
    assert record["status"] == "harness-error"
    assert "cannot read the scenario file" in record["error"]["message"]


def test_the_cli_exits_non_zero_when_nothing_ran() -> None:
    from rich.console import Console

    from harness.cli.shared import nothing_ran as _nothing_ran

    quiet = Console(file=io.StringIO())
    ran = {"status": "error", "error": {"message": "the scenario raised"}}
    skipped = {"status": "skipped", "error": {"message": "python2.7 not found: install it, or run with Docker"}}
    failed = {"status": "harness-error", "error": {"message": "the cell could not start: no such image"}}
    assert _nothing_ran([ran, skipped], quiet) == 0  # a scenario's own failure is a result
    assert _nothing_ran([skipped, failed], quiet) == 3
    assert _nothing_ran([], quiet) == 3
