"""Models built in a loop on TensorFlow 2.2 (a real release, in a virtualenv of its own): no name of the script keeps
them, Keras' global graph does, 15 operations a model, until `clear_session()`. The search at `end` says how many
operations it holds, the loop's growth says it gains them every iteration, and the script's own output is its own."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT

from harness.environments import venvs

SCRIPT = ROOT / "tests" / "repro" / "keras_models_in_loop.py"


def test_models_built_in_a_loop_are_named_in_keras_global_graph(tmp_path: Path) -> None:
    if venvs.find_python("3.8") is None:
        pytest.skip("TensorFlow 2.2 installs on Python 3.5-3.8, and there is none here")
    script = tmp_path / "loop.py"
    script.write_text(SCRIPT.read_text())
    done = subprocess.run([sys.executable, "-m", "harness", "repro", str(script), "--with", "tensorflow==2.2.3",
                           "--backend", "venv", "--variant", "cpu", "--venv-dir", str(tmp_path / "venvs"),
                           "--results", str(tmp_path / "results")], cwd=ROOT, capture_output=True, text=True,
                          timeout=1800, env=dict(os.environ, NO_COLOR="1", COLUMNS="200"))
    assert done.returncode == 0, done.stderr[-3000:]
    (run_dir,) = [p for p in (tmp_path / "results").iterdir() if p.is_dir()]
    text = (run_dir / "repro.md").read_text()
    assert ("- Keras' global graph holds 6002 operations: every model built since the last "
            "`tf.keras.backend.clear_session()` stays there with its layers (TensorFlow 2.0-2.3)") in text, text
    assert ("what grows with it: Keras' global graph gains 15 operations per iteration (5987 when #400 began): the models "
            "built in the loop stay there, layers and all, until `tf.keras.backend.clear_session()`") in text, text
    log = (run_dir / "logs" / "tensorflow==2.2.3" / "repro__loop.log").read_text(errors="replace")
    assert "FIDELITY keras loop done 400" in log
