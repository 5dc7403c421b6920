"""Every GPU cell says which CUDA it ran (copies of real records, tests/data/records): torch and TensorFlow report
their build's; CuPy's build is in its distribution's name (cupy-cuda112: 11.2); JAX reports none, and its CUDA is
the runtime wheel its plugin loaded. Before, the atlas's CUDA was empty for every JAX and CuPy run."""
from __future__ import annotations

import gzip
import json

import pytest
from helpers import ROOT

from harness.judgement.cell import judge_cell
from harness.reporting import glance

RECORDS = ROOT / "tests" / "data" / "records"


@pytest.mark.parametrize(("path", "cuda"), [
    ("cuda11-h100/tf-2.3.4-tf2__model_del.json.gz", "10.1"),
    ("cuda11-h100/cupy-10.6.0-cupy__pool_free_all_blocks.json.gz", "11.2"),
    ("jax-h200/jax__jit_cache_clear.json.gz", "12.9 (runtime wheel)"),
])
def test_the_cuda_a_cell_ran_is_named(path: str, cuda: str) -> None:
    record = json.loads(gzip.decompress((RECORDS / path).read_bytes()))
    assert glance.cuda_of(record) == cuda


def test_a_build_that_ran_by_ptx_jit_says_so_beside_its_answer() -> None:
    """TF 2.7.4 on an H100 has no sm_90 code: TensorFlow's log says its kernels are JIT-compiled from PTX, and the
    answer says how it ran; JAX 0.4.34's CUDA 12 build has its own code and says nothing of it."""
    from harness.judgement import answer

    path = RECORDS / "compare" / "tf27" / "host-tf-2.7.4" / "tf2__tf_function_training.json.gz"
    record = json.loads(gzip.decompress(path.read_bytes()))
    said = answer.of_cell(judge_cell(record)).text
    assert said.endswith("; ran by PTX JIT (no machine code for compute capability 9.0 in this build: a first start "
                         "compiles its kernels, the JIT cache keeps them)"), said
    other = json.loads(gzip.decompress((RECORDS / "jax-h200" / "jax__jit_cache_clear.json.gz").read_bytes()))
    assert "PTX JIT" not in answer.of_cell(judge_cell(other)).text
