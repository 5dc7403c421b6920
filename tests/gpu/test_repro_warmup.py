"""Measuring must not change what nvidia-smi shows for a user's script.

The same script (a tensor op that needs no cuBLAS) runs bare and under `repro`; the process's
GPU memory as NVML reports it must agree (the agent starts no CUDA runtime of its own).
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harness.measurement.backends.process import ProcessBackend
from harness.measurement.nvml import Nvml
from harness.measurement.runner import CellOptions, run_cell
from harness.running import repro

SCRIPT = """import sys
import torch
x = torch.randn(1024, 1024, device="cuda")
y = x * 2  # elementwise: no cuBLAS
torch.cuda.synchronize()
print("ready", flush=True)
sys.stdin.readline()
"""
MiB = 1024 * 1024


@pytest.mark.gpu
def test_repro_adds_nothing_nvidia_smi_would_show(tmp_path: Path) -> None:
    nvml = Nvml.open()
    if not nvml.available:
        pytest.skip(f"no NVML: {nvml.reason}")
    script = tmp_path / "no_cublas.py"
    script.write_text(SCRIPT)
    child = subprocess.Popen([sys.executable, str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        bare = nvml.process_used(0, {child.pid})
    finally:
        child.communicate("\n", timeout=60)
    item = repro.script_scenario(script)
    options = CellOptions(run_id="warmup", run_dir=tmp_path, env_name="host", env_facts={}, params={})
    record = run_cell(ProcessBackend(python=sys.executable), item, options, nvml)
    nvml.close()
    assert record["status"] == "ok", record["stderr_tail"]
    under = {cp["label"]: cp["readings"]["nvml_process"] for cp in record["checkpoints"]}["end"]
    print(f"bare {bare / MiB:.0f} MiB, under repro {under / MiB:.0f} MiB")
    assert bare is not None and abs(under - bare) <= 2 * MiB
