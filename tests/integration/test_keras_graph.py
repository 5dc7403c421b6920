"""Loops on TensorFlow 2.2 (a real release, in a virtualenv of its own, shared by the tests here). Models built in a
loop: no name of the script keeps them, Keras' global graph does, 15 operations a model, until `clear_session()`; the
search at `end` says how many operations it holds, the loop's growth says it gains them every iteration. predict() in
a loop: nothing keeps its objects, but each call leaves reference cycles that only a full collection frees, counted at
`end` in a copy of the process. The script's own output and its exit (Python 3.8) are its own."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT

from harness.environments import venvs

SCRIPT = ROOT / "tests" / "repro" / "keras_models_in_loop.py"
PREDICT = ROOT / "tests" / "repro" / "keras_predict_loop.py"


@pytest.fixture(scope="module")
def venv_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if venvs.find_python("3.8") is None:
        pytest.skip("TensorFlow 2.2 installs on Python 3.5-3.8, and there is none here")
    return tmp_path_factory.mktemp("venvs")


def _repro(source: Path, tmp_path: Path, venv_dir: Path) -> Path:
    script = tmp_path / "loop.py"
    script.write_text(source.read_text())
    done = subprocess.run([sys.executable, "-m", "harness", "repro", str(script), "--with", "tensorflow==2.2.3",
                           "--backend", "venv", "--variant", "cpu", "--venv-dir", str(venv_dir),
                           "--results", str(tmp_path / "results")], cwd=ROOT, capture_output=True, text=True,
                          timeout=1800, env=dict(os.environ, NO_COLOR="1", COLUMNS="200"))
    assert done.returncode == 0, done.stderr[-3000:]
    (run_dir,) = [p for p in (tmp_path / "results").iterdir() if p.is_dir()]
    return run_dir


def test_models_built_in_a_loop_are_named_in_keras_global_graph(tmp_path: Path, venv_dir: Path) -> None:
    run_dir = _repro(SCRIPT, tmp_path, venv_dir)
    text = (run_dir / "repro.md").read_text()
    assert ("- Keras' global graph holds 6002 operations: every model built since the last "
            "`tf.keras.backend.clear_session()` stays there with its layers (TensorFlow 2.0-2.3)") in text, text
    assert ("what grows with it: Keras' global graph gains 15 operations per iteration (5987 when #400 began): the models "
            "built in the loop stay there, layers and all, until `tf.keras.backend.clear_session()`") in text, text
    log = (run_dir / "logs" / "tensorflow==2.2.3" / "repro__loop.log").read_text(errors="replace")
    assert "FIDELITY keras loop done 400" in log


def test_predict_in_a_loop_leaves_cycles_only_a_full_collection_frees(tmp_path: Path, venv_dir: Path) -> None:
    run_dir = _repro(PREDICT, tmp_path, venv_dir)
    record = json.loads((run_dir / "tensorflow==2.2.3" / "repro__loop.json").read_text())
    census = record["heap_trim"]["garbage"]
    assert census["objects"] >= 2000 and census["freed"] > 0, census  # ~700 objects a call, some collected (1.09 MiB here)
    assert {"tensorflow.python.framework.ops.Operation", "tensorflow.python.framework.ops.Tensor"} <= {
        name for name, _, _ in census["libraries"]}, census
    text = (run_dir / "repro.md").read_text()
    assert "objects were in reference cycles that Python's garbage collector had not yet freed, among them " \
           "tensorflow's " in text, text
    assert record["exit_code"] == 0 and record["script_exit_code"] == 0  # 3.8 ended its process by SIGSEGV before
    log = (run_dir / "logs" / "tensorflow==2.2.3" / "repro__loop.log").read_text(errors="replace")
    assert "FIDELITY predict loop done 1000" in log
