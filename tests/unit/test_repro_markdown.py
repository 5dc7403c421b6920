"""What the repro Markdown says, on real GPU records: peaks between checkpoints, growth per
iteration, memory outside the allocator, and versions even when the script never ended."""
from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from harness.reporting import repro_md, timeline_peaks
from harness.store.results import load_record

RECORDS = Path(__file__).resolve().parents[1] / "data" / "records"  # copies of records under matrix/reference


def _load(path: Path) -> dict[str, Any]:
    return dict(load_record(path))


def test_a_peak_between_checkpoints_gets_its_own_row() -> None:
    record = _load(RECORDS / "h100-host-python3" / "torch__cudnn_benchmark.json.gz")
    peaks = timeline_peaks.peaks_between(record)
    assert list(peaks) == [1] and peaks[1]["after"] == "ready" and peaks[1]["before"] == "peak"
    assert peaks[1]["readings"]["nvml_process"] > record["checkpoints"][1]["readings"]["nvml_process"]
    text = repro_md.markdown([record], Path("bench.py"))
    assert "| *peak between `ready` and `peak`, at 5.46 s* | 43.04 GiB |" in text


def test_loops_are_summarised_once_per_loop() -> None:
    """The loop checkpoints `del model` and `torch.cuda.empty_cache()`: one growth line for both, not the same line
    twice."""
    record = _load(next((RECORDS / "repro" / "torch_model_loop" / "host-python3").glob("*.json.gz")))
    text = repro_md.markdown([record], Path("torch_model_loop.py"))
    assert ("`torch_model_loop.py:10: del model` and `torch_model_loop.py:11: torch.cuda.empty_cache()` (one loop) ran 30 "
            "times, measured at 12 of them (1-10, then every 10th, 100th, ...): 656.00 MiB at #1, 1.21 GiB at #30; grows "
            "20.00 MiB per iteration (noise ±211.86 KiB)") in text
    assert text.count("ran 30 times") == 1


def test_libraries_loaded_later_are_named_not_hidden() -> None:
    record = _load(next((RECORDS / "repro" / "torch_del_empty_cache" / "host-python3").glob("*.json.gz")))
    assert repro_md.outside_allocator(record) == ("end", 224 * 1024 * 1024)
    assert "took 518.00 MiB of GPU memory at `start`" in repro_md.markdown([record], Path("x.py"))


def test_a_script_that_timed_out_still_names_its_versions() -> None:
    record = _load(next((RECORDS / "repro" / "torch_model_loop" / "host-python3").glob("*.json.gz")))
    hung = copy.deepcopy(record)
    hung.update(status="timeout", facts={"python": None, "frameworks": {"torch": "2.11.0+cu130"}},
                error={"type": "Timeout", "message": "no end after 600s"})
    line = repro_md.markdown([hung], Path("x.py")).splitlines()[2]
    assert "torch 2.11.0+cu130; Python 3.12.3" in line


def test_a_slope_inside_the_jitter_is_flat_and_a_real_one_grows() -> None:
    """A Keras fit loop on host RSS: readings jitter by tens of MiB around a flat line (independent
    runs measured -0.26..+0.37 MiB per round); a leak of 20 MiB per iteration stands clear."""
    import random

    from harness.judgement import loops

    rng = random.Random(7)
    MiB = 1024 * 1024
    jitter = [(i, 430 * MiB + int(rng.uniform(-30, 30) * MiB)) for i in range(1, 21)]
    flat = loops.trend(jitter, "rss")
    assert not flat.growing and flat.text().startswith("flat (slope ") and "within noise ±" in flat.text()
    leak = loops.trend([(i, 430 * MiB + 20 * MiB * i + int(rng.uniform(-30, 30) * MiB)) for i in range(1, 21)], "rss")
    assert leak.growing and leak.text().startswith("grows ") and abs(leak.slope - 20 * MiB) < 3 * MiB


def test_a_slope_clear_of_the_noise_but_under_the_meters_smallest_change_is_called_small_not_flat() -> None:
    """3 MiB a round over 30 rounds on RSS: steady (no jitter), 90 MiB in all, under the 128 MiB RSS
    judges. It is neither 'within noise' (it is not) nor 'grows' (too little to judge): 'small'."""
    from harness.judgement import loops

    MiB = 1024 * 1024
    small = loops.trend([(i, 500 * MiB + 3 * MiB * i) for i in range(1, 31)], "rss")
    assert (small.growing, small.state) == (False, "small")
    assert small.text() == ("grows 3.00 MiB per iteration (noise ±105.93 KiB), 90.00 MiB over 30 iterations: clear of "
                            "the noise, though under the 128.00 MiB this meter judges a cleanup by")


def test_a_steady_half_mib_a_round_under_the_meters_noise_floor_is_small_and_one_step_is_flat() -> None:
    """The fresh-machine walk's loop (100 rounds each keeping a 256x256 product, torch on a CPU): RSS
    rises exactly 0.5 MiB a round, 50 MiB in all, under RSS's 64 MiB noise floor. Nineteen readings on one
    line are their own evidence: it grows ('small', under what RSS judges), never 'flat'. One 2 MiB step of
    NVML over 60 rounds (a pool extended once) stays flat, and three readings still answer to the floor."""
    from harness.judgement import loops

    MiB = 1024 * 1024
    sampled = [*range(1, 11), *range(20, 101, 10)]
    walk = loops.trend([(i, 225 * MiB + i * MiB // 2) for i in sampled], "rss")
    assert walk.state == "small" and walk.text().startswith("grows 512.00 KiB per iteration (noise ±31.03 KiB), 50.00 MiB")
    step = loops.trend([(i, 700 * MiB + (2 * MiB if i >= 30 else 0)) for i in [*range(1, 11), *range(20, 61, 10)]],
                       "nvml_process")
    assert step.state == "flat", step.text()
    few = loops.trend([(1, 225 * MiB), (2, 225 * MiB + MiB // 2), (3, 226 * MiB)], "rss")
    assert few.state == "flat"  # 1 MiB over three readings: the noise floor decides


def test_a_large_slope_inside_the_jitter_of_few_iterations_is_unclear_not_flat() -> None:
    """Three iterations of a DDP training loop, one rank on per-process NVML: the first step makes
    Adam's state (+470 MiB), then level. The fitted slope (+235 MiB per iteration) is inside its own
    noise, but would add up to far more than the meter judges: 'flat' would say more than three
    readings show, so the loop is 'unclear' (and a sweep calls no turn on it)."""
    from harness.judgement import loops, turns

    MiB = 1024 * 1024
    few = loops.trend([(1, 1587 * MiB), (2, 2057 * MiB), (3, 2057 * MiB)], "nvml_process")
    assert (few.growing, few.state) == (False, "unclear")
    assert few.text().startswith("unclear over 3 iterations (slope +235.00 MiB per iteration, inside the noise ±")
    level = loops.trend([(1, 1587 * MiB), (2, 1589 * MiB), (3, 1587 * MiB)], "nvml_process")
    assert level.state == "flat" and level.text().startswith("flat (slope +0 B per iteration")
    cell = {"status": "ok", "glance": {"back": "all"}, "steps": [{"label": "end", "verdict": "released"}],
            "loop": {"state": "unclear"}}
    assert turns.parts(cell) == turns.parts({**cell, "loop": None})  # no turn between unclear and anything


def test_a_builds_limit_on_the_gpu_is_said_in_the_judges_word() -> None:
    """torch 1.0.1 on an H100: CUDA 9.0's cuBLAS fails at the script's first large matrix product. The record
    says error; the judge says unsupported, the build's limit, and repro.md says what the judge says."""
    from harness.judgement import verdicts

    record = _load(RECORDS / "old-torch-h100" / "repro__holders_torch.json.gz")
    assert record["status"] == "error"
    record["verdicts"] = verdicts.judge(record)  # as every output reads it: judged by today's rules
    text = repro_md.markdown([record], Path("holders_torch.py"))
    assert ("Status: **unsupported**: a CUDA library's kernel failed to execute (\"the GPU program failed to "
            "execute\"): CUDA 9.0 predates the H100 80GB HBM3 (its code came with CUDA 11.8), the build's limit on "
            "this GPU, not an answer of the release (`RuntimeError: cublas runtime error") in text, text
