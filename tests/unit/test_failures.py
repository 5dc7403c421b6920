"""Who failed: a record's error re-judged by today's rules (judgement/failures.py). Only a failure of the
release itself is an answer; one that is this GPU's limit on the build, or the harness's, is not (and makes
no turn)."""
from __future__ import annotations

from typing import Any

from harness.judgement import failures, verdicts


def _record(message: str, cuda: str = "9.0.176", gpu: str = "NVIDIA H100 80GB HBM3") -> dict[str, Any]:
    return {"status": "error", "error": {"type": "RuntimeError", "message": message}, "checkpoints": [],
            "scenario": {"name": "torch/loss_graph_kept"}, "facts": {"cuda": cuda}, "host": {"gpu": {"name": gpu}}}


def test_cuda_words_for_no_code_make_the_cell_unsupported() -> None:
    judged = verdicts.judge(_record("cuda runtime error (8) : invalid device function at THCGeneral.cpp:405"))
    assert judged["status"] == "unsupported"
    assert '"invalid device function"' in judged["unsupported_reason"]


def test_a_library_that_fails_to_execute_is_the_builds_limit_only_where_its_cuda_predates_the_gpu() -> None:
    message = "cublas runtime error : the GPU program failed to execute at THCBlas.cu:258"
    assert "CUDA 9.0 predates the H100 80GB HBM3 (its code came with CUDA 11.8)" in failures.no_code_for_gpu(
        _record(message))
    assert failures.no_code_for_gpu(_record(message, cuda="12.8")) is None  # a CUDA with Hopper code: the release's
    assert failures.no_code_for_gpu(_record(message, gpu="Tesla V100-SXM2-16GB")) is None  # a GPU it knows nothing of
    assert verdicts.judge(_record(message, cuda="12.8"))["status"] == "error"
    # a record that keeps the GPU's compute capability is judged by it, whatever the GPU's name
    named = _record(message, gpu="NVIDIA Graphics Device")
    named["host"]["gpu"]["compute_capability"] = "9.0"
    assert "CUDA 9.0 predates the Graphics Device (its code came with CUDA 11.8)" in failures.no_code_for_gpu(named)
    named["host"]["gpu"]["compute_capability"] = "7.0"
    assert failures.no_code_for_gpu(named) is None  # CUDA 9.0 has Volta code: the release's own failure


def test_tensorflows_blas_launch_failure_is_the_builds_limit_where_cublas_failed_to_execute() -> None:
    """TensorFlow says "Blas GEMM launch failed" and logs cuBLAS's status to stderr; 1.14-2.2 name their CUDA's
    major alone. An execution failure on a GPU newer than that CUDA is the build's limit; a handle that could not be
    made (no memory left for cuBLAS's workspace) is not."""
    record = _record("Blas GEMM launch failed : a.shape=(4096, 4096), b.shape=(4096, 4096), m=4096, n=4096, k=4096",
                     cuda="10", gpu="NVIDIA H200")
    record["error"]["type"] = "InternalError"
    record["stderr_tail"] = ("E tensorflow/stream_executor/cuda/cuda_blas.cc:428] failed to run cuBLAS routine: "
                             "CUBLAS_STATUS_EXECUTION_FAILED\n")
    judged = verdicts.judge(record)
    assert judged["status"] == "unsupported", judged
    assert "CUDA 10 predates the H200 (its code came with CUDA 11.8)" in judged["unsupported_reason"]
    record["stderr_tail"] = "E tensorflow/stream_executor/cuda/cuda_blas.cc:238] failed to create cublas handle: " \
                            "CUBLAS_STATUS_NOT_INITIALIZED\n"
    assert verdicts.judge(record)["status"] == "error"
    record["stderr_tail"] = "failed to run cuBLAS routine: CUBLAS_STATUS_EXECUTION_FAILED\n"
    assert failures.no_code_for_gpu({**record, "facts": {"cuda": "11"}}) is None  # CUDA 11 on an H200: not by major


def test_an_old_agent_giving_up_on_a_live_child_is_the_harness_not_the_release() -> None:
    judged = verdicts.judge(_record("the child never reported its allocation (exit code None)"))
    assert judged["status"] == "harness-error" and "still running" in judged["harness_reason"]
    # a child that exited before it reported is the scenario's own failure
    assert verdicts.judge(_record("the child exited with 1 before it reported its allocation"))["status"] == "error"


def test_an_import_that_fails_inside_the_framework_is_no_answer_of_the_technique() -> None:
    """jax[cuda12]==0.4.35 as pip installs it today (nvidia-cuda-nvcc-cu12 12.9, a namespace package) fails in
    `import jax` (jax-ml/jax#24684): every technique alike, none ran. A failure in the scenario's own code is kept."""
    traceback = ('Traceback (most recent call last):\n  File "/root/src/harness/agent/agent.py", line 198, in run\n'
                 '    exec(compile(source, path, "exec"), namespace)\n'
                 '  File "/root/src/harness/scenarios/jax/preallocation.py", line 11, in <module>\n    import jax\n'
                 '  File "/root/venvs/jax/lib/python3.12/site-packages/jax/_src/lib/__init__.py", line 146, in x\n'
                 '    cuda_nvcc_path = pathlib.Path(cuda_nvcc.__file__).parent\nTypeError: argument should be a str\n')
    record = {**_record("argument should be a str"), "error": {"type": "TypeError", "message": "argument should be a str",
                                                               "traceback": traceback}}
    judged = verdicts.judge(record)
    assert judged["status"] == "unsupported" and judged["unsupported_reason"].startswith("`import jax` failed in this")
    ran = traceback.replace("    import jax\n", "    x = jnp.ones(3)\n")
    assert failures.import_failed({**record, "error": {**record["error"], "traceback": ran}}) is None


def test_a_child_that_died_in_the_scenarios_warm_up_never_reached_the_technique() -> None:
    """torch 1.4.0 on an H200: torch/child_process's child dies in _torchkit.init's first matrix product (CUDA
    10.1's cuBLAS), as every other cell of the build does; the parent never imported torch. Not an answer, and
    no turn against torch 2.11's "released". A child that died in the technique itself is kept as an error."""
    child = ('Process SpawnProcess-1:\nTraceback (most recent call last):\n'
             '  File "/root/.pyenv/versions/3.7.16/lib/python3.7/multiprocessing/process.py", line 99, in run\n'
             '    self._target(*self._args, **self._kwargs)\n'
             '  File "/work/main/harness/scenarios/torch/_child_work.py", line 8, in torch_child\n    init(dev)\n'
             '  File "/work/main/harness/scenarios/torch/_torchkit.py", line 29, in init\n    (a @ a).sum().item()\n'
             'RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm(...)`\n')
    record = {**_record("the child exited with 1 before it reported its allocation", cuda=""), "stderr_tail": child}
    judged = verdicts.judge(record)
    assert judged["status"] == "unsupported"
    assert "warm-up" in judged["unsupported_reason"] and "CUBLAS_STATUS_EXECUTION_FAILED" in judged["unsupported_reason"]
    in_technique = child.replace('_torchkit.py", line 29, in init', '_child_work.py", line 12, in torch_child')
    assert verdicts.judge({**record, "stderr_tail": in_technique})["status"] == "error"
