"""What holds the memory, judged from real H100 records (torch 2.11, JAX 0.11.2, process backend):
matrix/reference/h100-580.159.04-attribution. Each case was misread before: runtime growth as
cache, a helper process's 4 GiB as the script's cache, JAX's pool as live memory."""
from __future__ import annotations

from pathlib import Path

from harness.judgement import verdicts
from harness.reporting import repro_md
from harness.store.results import load_record

FIXTURES = Path(__file__).resolve().parents[2] / "matrix" / "reference" / "h100-580.159.04-attribution"
MiB = 1024 * 1024


def _steps(name: str) -> tuple[dict, dict[str, dict]]:
    (path,) = FIXTURES.glob(f"{name}/*/host-python3/*.json.gz")
    record = load_record(path)
    judged = verdicts.judge(record)
    return record, {s["label"].split(": ", 1)[-1]: s for s in judged["steps"]}


def test_a_small_tensor_freed_is_released_and_the_kernels_loaded_are_the_runtimes() -> None:
    record, steps = _steps("torch_small_tensor")
    deleted, emptied = steps["del t"], steps["torch.cuda.empty_cache()"]
    assert deleted["verdict"] == "cached" and deleted["pool"] == 124 * MiB and deleted["runtime_growth"] == 92 * MiB
    assert emptied["verdict"] == "released" and emptied["pool"] == 0 and emptied["runtime_growth"] == 92 * MiB
    assert "everything torch allocated is back to the driver" in emptied["detail"]
    assert "92.00 MiB more than at the first touch is the CUDA runtime's own" in emptied["detail"]
    said = repro_md.markdown([record], Path("torch_small_tensor.py"))
    assert "released (92.00 MiB left): everything torch allocated is back" in said


def test_a_helpers_memory_is_named_as_its_own_not_the_scripts_cache() -> None:
    record, steps = _steps("torch_detached_child")
    (helper,) = [k for k in record["killed"] if k["role"] == "started by the script"]
    step = steps["torch.cuda.empty_cache()"]
    assert step["elsewhere"] >= 4 * 1024 * MiB and [p["pid"] for p in step["elsewhere_processes"]] == [helper["pid"]]
    assert step["verdict"] == "released" and step["left"] < 128 * MiB  # the script's own: runtime growth only
    assert f"held by another process the script started: PID {helper['pid']}" in step["detail"]
    said = repro_md.markdown([record], Path("torch_detached_child.py"))
    assert f"once the harness had killed 1 process still running as the cell ended: PID {helper['pid']}" in said


def test_dataloader_workers_hold_nothing_and_live_tensors_are_counted() -> None:
    record, steps = _steps("torch_dataloader_workers")
    end = steps["end"]
    assert end["live"] == 65 * MiB and end["pool"] <= 1 * MiB and end["runtime_growth"] == 224 * MiB
    assert end["verdict"] in ("held", "partial") and "65.00 MiB still live in torch" in end["detail"]
    assert not end.get("elsewhere")  # the worker processes hold no GPU memory
    assert all(not p["bytes"] or p["pid"] == record["script_pid"]
               for cp in record["checkpoints"] for p in cp.get("gpu_processes", []) if p["in_cell"])


def test_jax_without_preallocation_keeps_its_pool_cached() -> None:
    record, steps = _steps("jax_no_prealloc")
    assert record["env_seen"]["XLA_PYTHON_CLIENT_PREALLOCATE"] == "false"
    end = steps["end"]
    assert end["verdict"] == "cached" and end["pool"] >= 1000 * MiB and end["live"] == 12 * MiB
    assert "cached in jax's allocator pool" in end["detail"]
