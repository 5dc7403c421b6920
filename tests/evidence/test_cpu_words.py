"""Without a GPU the answers say what was measured: host memory, and not a GPU allocator's behaviour.

On the committed CPU sweeps (no GPU: host memory only) and the H100 reference of the same scenarios."""
from __future__ import annotations

import re
from pathlib import Path

from helpers import reference_matrix

from harness.judgement import answer, gpu_only
from harness.judgement.cell import judge_cell, read_judged
from harness.measurement import scenario
from harness.measurement.unrun import scenario_facts
from harness.reporting import matrix_md
from harness.running import catalogue

REFERENCE = Path(__file__).resolve().parents[2] / "matrix" / "reference"
CPU_TORCH = next((REFERENCE / "sweeps" / "cpu-torch-2.12-2.15").glob("*/manifest.json")).parent
GPU_WORDS = re.compile(r"\b(driver|pool|runtime|GPU|cached)\b")


def _cells(run: Path, name: str) -> list[dict]:
    records, _ = read_judged(run)  # judged by today's rules, as every output is
    return [r for r in records if r["scenario"]["name"] == name]


def test_a_gpu_allocator_scenario_measured_on_a_cpu_is_not_shown_there() -> None:
    """torch/del_no_empty_cache on a CPU read "released to the OS": the opposite of what it shows on a
    GPU (the caching allocator keeps the blocks). Now n/a, with why; on the H100 it is judged as before."""
    for record in _cells(CPU_TORCH, "torch/del_no_empty_cache"):
        said = answer.of_cell(judge_cell(record))
        assert (said.back, said.word, said.verdict) == ("n/a", answer.NOT_SHOWN, "n/a")
        assert "caching allocator" in gpu_only.not_shown(record)
        # each step too: n/a with why, no "released" on it, its readings kept for the drill-down
        steps = record["verdicts"]["steps"]
        assert steps and all(s["verdict"] == "skipped" and s["word"].startswith("n/a: no GPU measured here: torch's")
                             and s["left"] is not None for s in steps)
    (gpu,) = _cells(REFERENCE / "h100-580.159.04", "torch/del_no_empty_cache")
    assert gpu_only.not_shown(gpu) == ""
    assert answer.of_cell(judge_cell(gpu)).back == "none"  # the pool keeps it: what it exists to show


def test_cpu_outputs_say_host_memory_first_and_use_no_gpu_words_for_host_readings() -> None:
    matrix = reference_matrix(CPU_TORCH)
    text = matrix_md.to_markdown(matrix)
    assert "Measured on: no GPU: host memory (RSS) only." in text.splitlines()[:8]
    assert "- `torch/del_no_empty_cache`: torch's CUDA caching allocator keeps freed blocks" in text
    for name, row in matrix["cells"].items():
        for env, cell in row.items():
            headline = answer.of_cell(cell).word
            if headline != answer.NOT_SHOWN:
                assert not GPU_WORDS.search(headline), (name, env, headline)
    sweep = (CPU_TORCH / "sweep.md").read_text(encoding="utf-8")
    assert "Measured on: no GPU: host memory (RSS) only." in sweep.splitlines()[:6]


def test_a_new_record_carries_the_reason_and_every_gpu_only_scenario_says_one() -> None:
    items = {s.name: s for s in catalogue.discover()}
    declared = {name for name, s in items.items() if s.gpu_only}
    assert {"torch/del_no_empty_cache", "jax/preallocation", "tf2/set_memory_growth", "tf1/allow_growth"} <= declared
    assert "torch/del_gc_empty_cache" not in declared  # del and gc.collect() free host memory too
    assert "tf1/session_close" not in declared  # a closed session keeps its host memory too: a finding of its own
    facts = scenario_facts(items["torch/expandable_segments"], {})
    assert facts["gpu_only"] == scenario.load(items["torch/expandable_segments"].path).gpu_only
    assert "gpu_only" not in scenario_facts(items["torch/reference_cycle"], {})


def test_cupy_without_a_driver_is_unsupported_here_not_an_error_of_the_scenario() -> None:
    """CuPy on a host with no NVIDIA driver raises "CUDA driver version is insufficient for CUDA runtime
    version": no driver, not an old one. The cell is unsupported there, with why; the same error where
    a GPU was measured stays the scenario's error."""
    from harness.judgement import verdicts

    message = "cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version"
    record = {"status": "error", "error": {"type": "CUDARuntimeError", "message": message},
              "scenario": {"name": "cupy/pool_free_all_blocks"},
              "checkpoints": [{"label": "ready", "t": 0.0, "readings": {"rss": 1, "nvml_device": None}}]}
    judged = verdicts.judge(record)
    assert judged["status"] == "unsupported"
    assert judged["unsupported_reason"].startswith("it needs an NVIDIA GPU and driver, and none answered here")
    with_gpu = {**record, "checkpoints": [{"label": "ready", "t": 0.0, "readings": {"rss": 1, "nvml_device": 5}}]}
    assert verdicts.judge(with_gpu)["status"] == "error"


def test_a_scripts_empty_cache_line_without_a_gpu_is_na_with_why_in_every_output(tmp_path: Path) -> None:
    """`repro` of a torch CPU script: its `torch.cuda.empty_cache()` line was judged "released (2.72 MiB
    left): back to the OS" although nothing was measured that it could give back. Rules 13: n/a, and why,
    in the record's steps, the terminal's table and repro.md; `del x` stays judged on host memory."""
    from rich.console import Console

    from harness.judgement import verdicts
    from harness.reporting import render, repro_md

    cps = [{"label": "start", "t": 0.0, "readings": {"rss": 20 << 20}},
           {"label": "ec.py:1: import torch", "t": 1.0, "readings": {"rss": 220 << 20}},
           {"label": "ec.py:3: del x", "t": 2.0, "readings": {"rss": 222 << 20}},
           {"label": "ec.py:4: torch.cuda.empty_cache()", "t": 3.0, "readings": {"rss": 222 << 20}},
           {"label": "end", "t": 4.0, "readings": {"rss": 222 << 20}}]
    record = {"scenario": {"name": "repro/ec", "mode": "repro"}, "status": "ok", "checkpoints": cps,
              "timeline": {"columns": ["t", "rss", "nvml_device", "nvml_process"], "samples": [[2.5, 480 << 20, None, None]]},
              "env": {"name": "torch", "backend": "venv"}, "host": {"nvml_available": False}, "facts": {}}
    steps = {s["label"]: s for s in verdicts.judge(record)["steps"]}
    cleared = steps["ec.py:4: torch.cuda.empty_cache()"]
    assert cleared["verdict"] == "skipped" and cleared["word"].startswith("n/a: no GPU measured here: `cuda.empty_cache()`")
    assert steps["ec.py:3: del x"]["verdict"] == "released"
    record["verdicts"] = verdicts.judge(record)
    text = repro_md.markdown([record], Path("ec.py"))
    assert "| `ec.py:4: torch.cuda.empty_cache()` | 222.00 MiB | n/a: no GPU measured here" in text, text
    console = Console(record=True, width=300)
    console.print(render.checkpoint_table(record))
    assert "n/a: no GPU measured here " in console.export_text()  # in short: repro.md says why in full
