"""How a release ran where not as its own install would, said beside its answer in the atlas: JAX 0.4.35 measured with
jaxlib 0.4.34 and an nvcc package added, TF 1.8 on a rebuilt stand-in for its own image; a stand-in for a CUDA base
only (CUDA from the release's wheels, as pip installs it) is not such a case."""
from __future__ import annotations

import gzip
import json

from helpers import ROOT

from harness.reporting.atlas_how import ran_with

DATA = ROOT / "tests" / "data"


def test_jax_0_4_35_names_its_jaxlib_and_the_package_added() -> None:
    record = json.loads(gzip.decompress((DATA / "records" / "jax-h200" / "jax__preallocation_0.4.35_nvcc.json.gz").read_bytes()))
    assert record["facts"]["frameworks"]["jaxlib"] == "0.4.34"
    assert ran_with(record, "jax", "0.4.35", "") == "jaxlib 0.4.34 (not 0.4.35); nvidia-cuda-nvcc-cu12 12.6.85 added"
    record["env"]["name"] = "jax[cuda12]==0.4.35"  # the extra's own pins: nothing added
    record["facts"]["frameworks"]["jaxlib"] = "0.4.35"
    assert ran_with(record, "jax", "0.4.35", "") == ""


def test_a_stand_in_for_the_frameworks_own_image_is_said_and_one_for_a_cuda_base_is_not() -> None:
    tf18 = (DATA / "stand-ins" / "tf1.8.txt").read_text()
    cuda = (DATA / "stand-ins" / "cuda-base.txt").read_text()
    assert ran_with({}, "tensorflow", "1.8.0", " ".join(tf18.split())) == (
        "a stand-in for tensorflow/tensorflow:1.8.0-gpu as its base")
    assert ran_with({}, "torch", "2.11.0+cu130", " ".join(cuda.split())) == ""
    assert ran_with({"env": {"name": "torch==2.7.1+cu126"}}, "torch", "2.7.1+cu126", "") == ""  # a local build: its own
