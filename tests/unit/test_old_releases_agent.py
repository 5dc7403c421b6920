"""The agent on a framework's oldest releases, on stand-ins with their shape of API: torch 1.0 has
no torch.cuda.is_initialized() (the flag is torch.cuda._initialized) and no memory_reserved()
(memory_cached() until 1.4), torch before 1.2 no torch.backends.cuda.is_built(); a kernel with no
code for the GPU is the build's limit on it, said as such (torch 1.0.1 on an H100:
matrix/reference/h100-580.159.04-old-torch)."""
from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "harness" / "agent"))
import agent  # noqa: E402  (agent code: imported from its folder, as inside an environment)
import framework_view  # noqa: E402

MIB = 1 << 20


def _torch_1_0(initialized: bool) -> types.ModuleType:
    torch = types.ModuleType("torch")
    torch.cuda = types.SimpleNamespace(  # type: ignore[attr-defined]
        _initialized=initialized, device_count=lambda: 1, memory_allocated=lambda device=None: 2048 * MIB,
        memory_cached=lambda device=None: 4096 * MIB, get_device_name=lambda index: "NVIDIA H100 80GB HBM3")
    torch.version = types.SimpleNamespace(cuda="9.0.176")  # type: ignore[attr-defined]
    torch.backends = types.SimpleNamespace(cudnn=types.SimpleNamespace(version=lambda: 7402),  # type: ignore[attr-defined]
                                           cuda=types.SimpleNamespace())
    return torch


@pytest.fixture()
def torch_1_0(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    torch = _torch_1_0(initialized=True)
    monkeypatch.setitem(sys.modules, "torch", torch)
    return torch


def test_torch_1_0s_pool_is_read_through_its_own_names(torch_1_0: types.ModuleType) -> None:
    assert framework_view.torch_cuda_started(torch_1_0)
    assert framework_view.collect()["torch"] == {"in_use": 2048 * MIB, "reserved": 4096 * MIB}
    facts: dict = {}
    framework_view._torch_facts(facts)
    assert facts == {"cuda": "9.0.176", "cudnn": 7402, "gpu_devices": {"torch": 1}, "gpu_seen": "NVIDIA H100 80GB HBM3"}


def test_torch_1_0_that_never_started_cuda_is_not_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "torch", _torch_1_0(initialized=False))
    assert "torch" not in framework_view.collect()


@pytest.mark.parametrize("said", [
    "cuda runtime error (8) : invalid device function at /pytorch/aten/src/THC/THCGeneral.cpp:405",
    "CUDA error: no kernel image is available for execution on the device",
])
def test_a_kernel_without_code_for_the_gpu_is_the_builds_limit_not_the_scripts_error(said: str) -> None:
    assert agent.classify(RuntimeError, RuntimeError(said)) == "unsupported"


def test_other_cuda_failures_stay_errors() -> None:
    failed = "cublas runtime error : the GPU program failed to execute at /pytorch/aten/src/THC/THCBlas.cu:258"
    assert agent.classify(RuntimeError, RuntimeError(failed)) == "error"
    assert agent.classify(RuntimeError, RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB")) == "error"
