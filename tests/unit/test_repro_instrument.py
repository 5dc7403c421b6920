"""Automatic checkpoints in an unmodified script, under today's Python and the oldest ones here."""
from __future__ import annotations

import sys
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
    assert sum("more measured iterations" in row for row in rows) == 2
    assert "`rounds.py:6: del x#1`" in text and "`rounds.py:6: del x#100`" in text
    assert len(text.splitlines()) <= 40
