"""A report's other imports reach every environment: read from its code, named as pip installs them, added
beside each environment's pins (--pip), and where a cell still lacks one, its failure says which and the fix
(a real script run in a real process)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from harness.common.errors import UsageError
from harness.definitions import config
from harness.environments import pins
from harness.judgement import failures
from harness.measurement.backends.process import ProcessBackend
from harness.measurement.nvml import Nvml
from harness.measurement.runner import CellOptions, run_cell
from harness.measurement.scenario import Scenario
from harness.running import report_packages, script_imports

# tensorflow#46661's imports, as pasted (psutil for RSS, tqdm for the loop, matplotlib to plot it)
IMPORTS = """import tensorflow as tf
import numpy as np
import tqdm
import os
import psutil
import matplotlib.pyplot as plt
import cv2
from sklearn.metrics import f1_score
from model import Net
"""


def test_the_other_imports_are_named_as_pip_installs_them() -> None:
    modules = script_imports.imported_modules(IMPORTS)
    assert report_packages.others(modules, {"model"}) == ["matplotlib", "opencv-python-headless", "psutil",
                                                          "scikit-learn", "tqdm"]
    assert report_packages.others({"torch", "torch.nn", "jax.numpy", "jaxlib", "keras", "numpy", "__future__",
                                   "cPickle", "gc"}) == []


def test_every_environment_gets_them_beside_its_pins_one_that_pins_it_keeps_its_pin() -> None:
    envs = config.load_environments()
    current = config.with_packages(envs["tf-current"], ["psutil"])
    assert current.variants["cpu"].packages == (*envs["tf-current"].variants["cpu"].packages, "psutil")
    assert current.definition_hash("cpu") != envs["tf-current"].definition_hash("cpu")  # an image of its own
    torch = config.with_packages(envs["torch"], ["numpy==1.26.4", "psutil==5.9.4"])
    assert torch.variants["cpu"].packages == (*envs["torch"].variants["cpu"].packages, "psutil==5.9.4")  # numpy kept
    image = config.adhoc_image("myorg/train:1", ["torch"])
    assert config.with_packages(image, ["psutil"]) is image


def test_a_package_is_a_name_or_one_release() -> None:
    assert [str(r) for r in pins.packages(["psutil", "psutil==5.9.4"])] == ["psutil", "psutil==5.9.4"]
    with pytest.raises(UsageError, match=r"--pip 'psutil>=5': give psutil alone \(pip's choice\) or one release"):
        pins.packages(["psutil>=5"])
    with pytest.raises(UsageError, match=r"--pip 'ps util': 'ps util' is not a requirement .*; write PKG or PKG==VERSION"):
        pins.packages(["ps util"])


def test_a_cell_whose_environment_lacks_an_import_says_which_and_the_fix(tmp_path: Path) -> None:
    script = tmp_path / "report.py"
    script.write_text("import gc\nimport gcm_absent_module\ngc.collect()\n")
    item = Scenario(name="repro/report", path=script, families=("any",), mode="repro")
    options = CellOptions(run_id="r", run_dir=tmp_path, env_name="local", env_facts={}, params={})
    record = run_cell(ProcessBackend(python=sys.executable), item, options, Nvml(False, "not needed"))
    assert record["status"] != "ok" and record["error"]["type"] == "ModuleNotFoundError", record.get("error")
    assert failures.missing_module(record) == ("the script imports gcm_absent_module, which this environment lacks: "
                                               "--pip gcm-absent-module adds it to every environment")
    record["error"]["message"] = "No module named 'tensorflow.contrib'"  # TF 1.x code on 2.x: the release's answer
    assert failures.missing_module(record) is None
