"""The torch scenarios' warm-up on a build whose cuBLAS is older than the GPU (torch 1.4.0's CUDA 10.1 on an
H200): the scenario goes on without cuBLAS and ``ready`` says so, unless the failure broke the CUDA context.

No GPU here: ``_torchkit`` runs against a small stand-in for the torch calls it makes, which fails as torch
1.4.0 did on the H200 (matrix/reference/h200-580.159.04-old-torch/); the lab's GPU runs check the rest.
"""
from __future__ import annotations

import importlib
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from harness.judgement import answer, failures
from harness.judgement.cell import judge_cell

KIT = Path(__file__).resolve().parents[2] / "harness" / "scenarios" / "torch"
CUBLAS = ("CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle, opa, opb, m, n, k, "
          "&alpha, a, lda, b, ldb, &beta, c, ldc)`")


class _Tensor:
    def __init__(self, fails: str | None) -> None:
        self.fails = fails

    def __matmul__(self, other: Any) -> _Tensor:
        if self.fails:
            raise RuntimeError(self.fails)
        return self

    def sum(self) -> _Tensor:
        return self

    def item(self) -> float:
        return 0.0


def _kit(monkeypatch: pytest.MonkeyPatch, matmul: str | None, sync: str | None = None) -> Any:
    calls: list[str] = []

    def synchronize() -> None:
        calls.append("synchronize")
        if sync:
            raise RuntimeError(sync)

    torch = types.ModuleType("torch")
    torch.ones = lambda *shape, device=None: _Tensor(matmul)  # type: ignore[attr-defined]
    torch.cuda = types.SimpleNamespace(synchronize=synchronize)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.syspath_prepend(str(KIT))
    monkeypatch.setitem(sys.modules, "_torchkit", types.ModuleType("_torchkit"))  # taken out again after the test
    del sys.modules["_torchkit"]
    kit = importlib.import_module("_torchkit")
    kit.calls = calls
    return kit


def _cuda() -> Any:
    return types.SimpleNamespace(type="cuda")


def test_a_warm_up_whose_cublas_fails_goes_on_and_says_what_it_ran_without(monkeypatch: pytest.MonkeyPatch) -> None:
    kit = _kit(monkeypatch, CUBLAS)
    said = kit.init(_cuda())
    assert said == {"note": {"without": "cuBLAS", "cause": CUBLAS}}
    assert kit.calls == ["synchronize"]  # the context was checked before going on


def test_a_failure_that_broke_the_context_stops_the_cell_with_the_cublas_cause(monkeypatch: pytest.MonkeyPatch) -> None:
    kit = _kit(monkeypatch, CUBLAS, sync="CUDA error: an illegal instruction was encountered")
    with pytest.raises(RuntimeError, match="CUBLAS_STATUS_EXECUTION_FAILED"):
        kit.init(_cuda())


def test_other_failures_and_the_cpu_are_not_forgiven(monkeypatch: pytest.MonkeyPatch) -> None:
    kit = _kit(monkeypatch, "CUDA error: out of memory")
    with pytest.raises(RuntimeError, match="out of memory"):
        kit.init(_cuda())
    kit = _kit(monkeypatch, "cublas on the CPU?")
    with pytest.raises(RuntimeError, match="cublas"):
        kit.init(types.SimpleNamespace(type="cpu"))
    assert _kit(monkeypatch, None).init(_cuda()) == {}  # a warm-up that works says nothing


def _record(note: dict[str, str] | None) -> dict[str, Any]:
    ready: dict[str, Any] = {"label": "ready", "readings": {"nvml_process": 900 << 20}}
    if note:
        ready["note"] = note
    return {"status": "ok", "facts": {"cuda": "10.1", "frameworks": {"torch": "1.4.0"}},
            "host": {"gpu": {"name": "NVIDIA H200", "compute_capability": "9.0"}},
            "checkpoints": [ready, {"label": "peak", "readings": {"nvml_process": (900 << 20) + (2 << 30)}},
                            {"label": "after_empty_cache", "readings": {"nvml_process": 900 << 20}}]}


def test_the_judge_says_beside_the_answer_what_the_cell_ran_without() -> None:
    said = failures.measured_without(_record({"without": "cuBLAS", "cause": CUBLAS}))  # type: ignore[arg-type]
    assert said == ['measured without cuBLAS, which failed on this GPU in the warm-up ("CUBLAS_STATUS_EXECUTION_FAILED"; '
                    "CUDA 10.1 predates the H200 (its code came with CUDA 11.8))"]
    assert failures.measured_without(_record(None)) == []  # type: ignore[arg-type]
    cell = {"status": "ok", "caveats": said, "steps": [
        {"label": "after_empty_cache", "verdict": "released", "left": 0, "grown": 2 << 30, "tol": 1 << 20}]}
    found = answer.of_cell(cell)
    assert found.text == "released; " + said[0]
    assert found.as_dict()["caveats"] == said
    assert "caveats" not in answer.of_cell({**cell, "caveats": []}).as_dict()
    assert answer.of_cell({**cell, "status": "error"}).caveats == ()  # a failed cell's cause says it all


def test_a_record_with_the_note_is_judged_with_it() -> None:
    record = _record({"without": "cuBLAS", "cause": CUBLAS})
    record.update(scenario={"name": "torch/del_gc_empty_cache"}, env={"name": "torch==1.4.0"}, variant="gpu")
    summary = judge_cell(record)  # type: ignore[arg-type]
    assert summary["caveats"][0].startswith("measured without cuBLAS")
    assert "measured without cuBLAS" in summary["glance"]["text"]
