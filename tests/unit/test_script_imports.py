"""Which frameworks a bug report's script needs: every import form, its own modules, known libraries."""
from __future__ import annotations

from pathlib import Path

import pytest

from harness.common.errors import UsageError
from harness.running import repro
from harness.running.script_imports import imported_modules, script_needs


@pytest.mark.parametrize("source, family", [
    ("import os, time, jax\n", "jax"),
    ("import numpy as np, torch as T\n", "torch"),
    ("from cupy import cuda\n", "cupy"),
    ("def f():\n    import torch\n    return torch\n", "torch"),
    ("try:\n    import tensorflow.compat.v1 as tf\nexcept ImportError:\n    tf = None\n", "tf2"),
    ("print 'python 2'\nimport os, tensorflow as tf\n", "tf1"),  # does not parse: read line by line
    ("from transformers import AutoModel\n", "torch"),
    ("import flax.linen as nn\n", "jax"),
    ("import os\nos.environ['KERAS_BACKEND'] = 'jax'\nimport keras\n", "jax"),
    ("import keras\n", "tf2"),
])
def test_every_import_form_is_recognised(source: str, family: str) -> None:
    assert family in repro.script_families(source)


def test_relative_and_aliased_imports_are_all_listed() -> None:
    assert imported_modules("from . import model\nfrom .util import x\nimport a.b as c\n") >= {".model", ".util", "a.b"}


def test_a_framework_reached_through_the_scripts_own_module(tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text("import torch\nclass Net: pass\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "data.py").write_text("from jax import numpy as jnp\n")
    script = tmp_path / "train.py"
    script.write_text("from model import Net\nfrom pkg.data import load\n")
    needs = script_needs(script)
    assert needs.frameworks == ("torch", "jax")
    assert needs.why["torch"] == "model.py imports torch" and needs.why["jax"] == "data.py imports jax"
    assert set(needs.local_modules) == {"model", "pkg.data"}
    assert repro.script_scenario(script).families == ("torch", "jax")


def test_keras_backend_from_setenv(tmp_path: Path) -> None:
    script = tmp_path / "k.py"
    script.write_text("import keras\n")
    assert script_needs(script, {"KERAS_BACKEND": "torch"}).frameworks == ("torch",)
    assert "(keras loads tensorflow)" in script_needs(script).why["tensorflow"]


def test_a_directory_is_named_as_one(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="is a directory: give the .py file"):
        repro.script_scenario(tmp_path)


def test_a_script_the_user_placed_in_an_environment_runs_whatever_it_imports(tmp_path: Path) -> None:
    script = tmp_path / "plain.py"
    script.write_text("import mylib\n")
    with pytest.raises(UsageError, match="name the environment"):
        repro.script_scenario(script)
    assert repro.script_scenario(script, plain=True).families == ("any",)
