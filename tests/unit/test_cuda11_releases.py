"""Old releases on CUDA 11.8 from NVIDIA's wheels, judged from their records on an H100 (copies in
tests/data/records/cuda11-h100): TensorFlow 2.3.4 with 11.8's runtime linked under 10.1's names died by a signal
in its graph-mode cells (the environment's failure, never a turn of the release); TensorFlow 2.4.4, older than
TF_GPU_ALLOCATOR, measured BFC under it (no answer of the switch); CuPy 10.6.0 compiled for an older GPU than
Hopper, and ran once CUPY_COMPILE_WITH_PTX=1 had the driver compile it."""
from __future__ import annotations

import copy
from pathlib import Path

from harness.judgement import failures, verdicts
from harness.judgement.cell import judge_cell
from harness.model.record import Status
from harness.store import results

RECORDS = Path(__file__).resolve().parents[1] / "data" / "records" / "cuda11-h100"


def _record(name: str):
    return results.load_record(RECORDS / f"{name}.json.gz")


def test_a_crash_with_cuda_libraries_linked_under_older_names_is_the_environments_failure() -> None:
    crashed = _record("tf-2.3.4-tf1__allow_growth")
    assert crashed["status"] == Status.CRASHED.value and "cuda-aliases" in crashed["env"]["library_path"]
    judged = verdicts.judge(crashed)
    assert judged["status"] == Status.HARNESS_ERROR.value
    assert judged["harness_reason"].startswith("the process died by a signal after it ran with newer CUDA libraries "
                                               "linked under the older names it loads")
    plain = copy.deepcopy(crashed)
    plain["env"]["library_path"] = plain["env"]["library_path"].replace("/cuda-aliases", "/lib")
    assert failures.aliased_crash(plain) is None and verdicts.judge(plain)["status"] == Status.CRASHED.value


def test_a_cell_that_ran_with_such_libraries_says_so_beside_its_answer() -> None:
    ran = _record("tf-2.3.4-tf2__model_del")
    summary = judge_cell(ran)
    assert summary["status"] == Status.OK.value
    assert any(c.startswith("ran with newer CUDA libraries linked under the older names") for c in summary["caveats"])
    ran["env"]["cuda_aliases"] = ["libcudart.so.10.1=libcudart.so.11.0"]  # what today's backend records
    assert failures.aliased_libraries(ran) == ("ran with newer CUDA libraries linked under the older names it loads "
                                               "(libcudart.so.10.1 as libcudart.so.11.0)")


def test_a_release_older_than_tf_gpu_allocator_is_no_answer_of_the_switch() -> None:
    judged = verdicts.judge(_record("tf-2.4.4-tf2__cuda_malloc_async"))
    assert judged["status"] == Status.UNSUPPORTED.value
    assert judged["unsupported_reason"].startswith("TF_GPU_ALLOCATOR=cuda_malloc_async came with tensorflow 2.5: "
                                                   "tensorflow 2.4.4 does not have it")


def test_cupy_compiled_for_an_older_gpu_names_the_switch_that_runs_it() -> None:
    older = _record("cupy-10.6.0-cupy__pool_free_all_blocks")
    judged = verdicts.judge(older)
    assert judged["status"] == Status.UNSUPPORTED.value
    assert judged["unsupported_reason"].startswith("CuPy 10.6.0 compiled its kernel for an older GPU than the "
                                                   "H100 80GB HBM3 (--setenv CUPY_COMPILE_WITH_PTX=1 runs it")
    with_ptx = _record("cupy-10.6.0-ptx-cupy__pool_free_all_blocks")
    assert with_ptx["setenv"]["CUPY_COMPILE_WITH_PTX"] == "1" and verdicts.judge(with_ptx)["status"] == Status.OK.value
    assert failures.cupy_compiled_for_older_gpu(with_ptx) is None


def test_a_cupy_that_cannot_load_cudas_libraries_on_a_cpu_host_says_it_needs_them() -> None:
    """CuPy 8 on a CPU host: "CuPy is not correctly installed ... libcublas.so.11: cannot open shared object
    file" is what a host without CUDA gives, not a broken install."""
    record = results.load_record(RECORDS.parent / "cpu-oldest" / "cupy-8.6.0-cupy__pool_free_all_blocks.json.gz")
    assert record["status"] == Status.UNSUPPORTED.value and "CuPy is not correctly installed" in record["error"]["message"]
    judged = verdicts.judge(record)
    assert judged["unsupported_reason"] == ("it needs CUDA's libraries and an NVIDIA GPU, and neither is here "
                                            "(libcublas.so.11: cannot open shared object file: No such file or directory)")
