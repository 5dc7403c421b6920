"""Automatic checkpoints in an unmodified script, under today's Python and the oldest ones here."""
from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
from helpers import SCENARIOS, old_pythons

from harness.measurement.backends.process import ProcessBackend
from harness.measurement.nvml import Nvml
from harness.measurement.runner import CellOptions, run_cell
from harness.measurement.scenario import Scenario
from harness.running import repro

EXPECTED = [
    "start",
    "repro_stdlib.py:8: del block#1",  # in a function: it may run many times, so it is numbered
    "repro_stdlib.py:14: data = None",
    "repro_stdlib.py:16: gc.collect()",
    "repro_stdlib.py:18: gc.collect()#1",  # in a loop: one label per iteration
    "repro_stdlib.py:18: gc.collect()#2",
    "end",
]


@pytest.mark.parametrize("python", [sys.executable, *old_pythons()])
def test_checkpoints_land_after_each_cleanup(python: str, tmp_path: Path) -> None:
    item = Scenario(name="repro/repro_stdlib", path=SCENARIOS / "repro_stdlib.py", families=("any",), mode="repro")
    options = CellOptions(run_id="r", run_dir=tmp_path, env_name="local", env_facts={}, params={})
    record = run_cell(ProcessBackend(python=python), item, options, Nvml(False, "not needed"))
    assert record["status"] == "ok", record["stderr_tail"]
    assert [cp["label"] for cp in record["checkpoints"]] == EXPECTED
    assert "done" in record["stderr_tail"]  # the script's own output, kept
    steps = {s["label"]: s for s in record["verdicts"]["steps"]}
    assert record["verdicts"]["peak"] == "peak (timeline)"
    assert record["loops"] == {"repro_stdlib.py:18: gc.collect()": 2}  # sites run more than once
    assert steps["repro_stdlib.py:8: del block#1"]["grown"] >= 256 * 1024 * 1024  # the peak inside work() was seen


def test_script_families_come_from_its_imports() -> None:
    assert repro.script_families("import torch\nfrom tensorflow import keras\n") == ("tf1", "tf2", "torch")
    assert repro.script_families("import numpy\n") == ()


def test_a_script_without_a_framework_is_one_clear_error(tmp_path: Path) -> None:
    script = tmp_path / "plain.py"
    script.write_text("print('hi')\n")
    with pytest.raises(Exception, match="imports none of tensorflow, torch, jax, cupy"):
        repro.script_scenario(script)


def test_a_long_loop_is_measured_at_sampled_iterations(tmp_path: Path) -> None:
    script = tmp_path / "loop.py"
    script.write_text("import gc\nfor i in range(25):\n    x = bytearray(1024)\n    del x\ngc.collect()\n")
    item = repro.script_scenario(script, plain=True)
    options = CellOptions(run_id="r", run_dir=tmp_path, env_name="local", env_facts={}, params={})
    record = run_cell(ProcessBackend(python=sys.executable), item, options, Nvml(False, "not needed"))
    assert record["status"] == "ok", record["stderr_tail"]
    looped = [cp["label"].rsplit("#", 1)[1] for cp in record["checkpoints"] if "#" in cp["label"]]
    assert looped == [str(n) for n in range(1, 11)] + ["20"]  # 1-10, then every 10th
    assert record["loops"] == {"loop.py:4: del x": 25}
    assert "loop.py:5: gc.collect()" in [cp["label"] for cp in record["checkpoints"]]  # outside the loop: no number
    fast = [cp for cp in record["checkpoints"] if cp["settle"].get("fast")]
    assert len(fast) >= len(record["checkpoints"]) // 2  # nothing moved: four equal readings, a few ms


def test_library_cleanup_helpers_get_checkpoints() -> None:
    """accelerate's release_memory / free_memory, torch.compiler.reset, and any call whose name says it
    frees, clears, releases, resets or closes; an allocation named `empty` is not a cleanup."""
    sys.path.insert(0, str(Path(repro.__file__).resolve().parents[1] / "agent"))
    import instrument
    source = ("model, opt = release_memory(model, opt)\naccelerator.free_memory()\ntorch.compiler.reset()\n"
              "pool.freeAll()\nx = torch.empty(3)\ny = model(x)\nkeras.backend.clear_session()\n")
    code, added = instrument.instrument(source, "s.py")
    assert added == 5
    labels = [c for c in code.co_consts if isinstance(c, str) and c.startswith("s.py:")]
    assert labels == ["s.py:1: model, opt = release_memory(model, opt)", "s.py:2: accelerator.free_memory()",
                      "s.py:3: torch.compiler.reset()", "s.py:4: pool.freeAll()", "s.py:7: keras.backend.clear_session()"]


def test_destroying_the_process_group_gets_a_checkpoint() -> None:
    """What NCCL keeps after `dist.destroy_process_group()` is a classic multi-GPU question: the line is a cleanup."""
    sys.path.insert(0, str(Path(repro.__file__).resolve().parents[1] / "agent"))
    import instrument
    code, added = instrument.instrument("import torch.distributed as dist\ndist.destroy_process_group()\n", "s.py")
    labels = [c for c in code.co_consts if isinstance(c, str) and c.startswith("s.py:")]
    assert "s.py:2: dist.destroy_process_group()" in labels


def test_a_100_round_loop_fits_a_screen_in_repro_md(tmp_path: Path) -> None:
    """19 measured iterations of each of two cleanup lines: repro.md keeps each line's first, last and
    heaviest iteration and folds the rest into one row (every row stays in the record and report.html)."""
    from harness.judgement import verdicts
    from harness.reporting import repro_md

    script = tmp_path / "rounds.py"
    script.write_text("import gc\nkept = []\nfor i in range(100):\n    x = bytearray(1 << 20)\n    kept.append(i)\n"
                      "    del x\n    gc.collect()\n")
    item = repro.script_scenario(script, plain=True)
    options = CellOptions(run_id="r", run_dir=tmp_path, env_name="local", env_facts={"kind": "process"}, params={})
    record = run_cell(ProcessBackend(python=sys.executable), item, options, Nvml(False, "not needed"))
    assert record["status"] == "ok", record["stderr_tail"]
    record["verdicts"] = verdicts.judge(record)
    assert sum("#" in cp["label"] for cp in record["checkpoints"]) == 38  # 1-10, 20, ..., 100: twice
    text = repro_md.markdown([record], script)
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    assert len(rows) <= 12, "\n".join(rows)
    folded = [row for row in rows if "more measured iterations" in row]  # the loop's two lines fold into one row
    assert len(folded) == 1 and "`rounds.py:6: del x`, `rounds.py:7: gc.collect()`" in folded[0], folded
    assert "`rounds.py:6: del x#1`" in text and "`rounds.py:6: del x#100`" in text
    assert len(text.splitlines()) <= 40
    # The terminal's table folds the same rows, and shows no GPU column where no GPU was read.
    from rich.console import Console

    from harness.reporting import render

    console = Console(width=160, record=True)
    console.print(render.checkpoint_table(record))
    shown = console.export_text()
    assert shown.count("more measured iterations") == 1 and "del x#100" in shown and "nvml" not in shown
    assert len(shown.splitlines()) <= 20, shown


def test_a_loop_without_a_cleanup_line_is_measured_per_iteration(tmp_path: Path) -> None:
    """A loop that keeps what it makes and cleans nothing up: no cleanup checkpoint would ever see it.
    Its iterations are measured at their start (1-10, then every 10th, 100th), and the growth per
    iteration is found against the readings' noise; the same loop rebinding its one buffer is flat."""
    from harness.judgement import loops, verdicts

    def run(body: str) -> dict:
        script = tmp_path / "grows.py"
        script.write_text(f"kept = []\nfor i in range(300):\n    {body}\nprint(len(kept))\n")
        item = repro.script_scenario(script, plain=True)
        options = CellOptions(run_id="r", run_dir=tmp_path, env_name="local", env_facts={}, params={})
        record = run_cell(ProcessBackend(python=sys.executable), item, options, Nvml(False, "not needed"))
        assert record["status"] == "ok", record["stderr_tail"]
        return record

    grows = run("kept.append(bytearray(1 << 20))")
    sampled = [cp["label"] for cp in grows["checkpoints"] if "#" in cp["label"]]
    assert sampled[0] == "grows.py:2: for i in range(300):#1" and sampled[-1].endswith("#300") and len(sampled) == 21
    assert grows["loops"] == {"grows.py:2: for i in range(300):": 300}
    summary = loops.summary(grows, verdicts.measured_meter(grows))
    assert summary["growing"] and 0.9 * 2**20 < summary["slope"] < 1.1 * 2**20
    flat = loops.summary(run("x = bytearray(1 << 20)"), "rss")
    assert not flat["growing"]


def test_a_forked_child_runs_the_scripts_loops_and_cleanups_without_stopping(tmp_path: Path) -> None:
    """The child runs the same instrumented code; a checkpoint there would wait for a measurement meant
    for its parent (the child hung until the cell's end). It is measured with the cell, never stopped."""
    script = tmp_path / "forks.py"
    script.write_text("import os, time\nx = bytearray(1 << 20)\npid = os.fork()\nif pid == 0:\n"
                      "    for i in range(3):\n        time.sleep(0.01)\n    del x\n    os._exit(7)\n"
                      "_, status = os.waitpid(pid, 0)\nprint('child exit', os.WEXITSTATUS(status))\n")
    item = repro.script_scenario(script, plain=True)
    options = CellOptions(run_id="r", run_dir=tmp_path, env_name="local", env_facts={}, params={}, timeout=60)
    began = time.monotonic()
    record = run_cell(ProcessBackend(python=sys.executable), item, options, Nvml(False, "not needed"))
    assert record["status"] == "ok" and time.monotonic() - began < 20, record["stderr_tail"]
    assert "child exit 7" in record["stderr_tail"]
    labels = [cp["label"] for cp in record["checkpoints"]]
    assert not [label for label in labels if "for i in range(3)" in label or "del x" in label]  # a bare fork's: none
