"""Whether a framework used the GPU a cell gave it: without that, no GPU verdict is about the framework.

A TensorFlow whose CUDA libraries did not load (a wheel's RUNPATH that misses some of them,
tensorflow/tensorflow#65842) runs on the CPU; the GPU then holds only the CUDA context it made
while looking, which would otherwise read as "the pool mapped at the first touch, still held".
"""
from __future__ import annotations

import re

from harness.model.record import CellRecord, ErrorInfo, Status, meter_value

TF_NO_GPU = "Skipping registering GPU devices"  # TensorFlow's own line when its GPU libraries did not load


def framework_without_gpu(record: CellRecord) -> str | None:
    """Why a cell that had the GPU says nothing about a framework's GPU memory: the framework did
    not use the GPU (TensorFlow whose CUDA libraries did not load runs on the CPU, and the GPU
    then holds only the CUDA context it made while looking). None when it did, or cannot say."""
    if (record.get("env") or {}).get("gpu_request") == "none" or not any(
            (cp.get("readings") or {}).get("nvml_device") is not None for cp in record.get("checkpoints") or []):
        return None  # no GPU in this cell: nothing to miss
    devices = dict((record.get("facts") or {}).get("gpu_devices") or {})
    if TF_NO_GPU in str(record.get("stderr_tail") or ""):  # from any process of the cell (a child's too)
        devices["tensorflow"] = 0
    missing = sorted(name for name, count in devices.items() if count == 0)
    if not missing:
        return None
    why = " (its GPU libraries did not load: \"Cannot dlopen some GPU libraries\")" if "tensorflow" in missing else ""
    return (f"{' and '.join(missing)} registered no GPU device{why}: the cell ran on the CPU, so its GPU readings are "
            "the CUDA context, not the framework's memory")


# What a framework raises when it needs the GPU and there is none (CuPy: cudaErrorInsufficientDriver,
# "CUDA driver version is insufficient for CUDA runtime version"; torch: "Found no NVIDIA driver").
NO_GPU_ERROR = re.compile(r"CUDA driver version is insufficient|cudaErrorInsufficientDriver|no CUDA-capable device"
                          r"|cudaErrorNoDevice|CUDA_ERROR_NO_DEVICE|Found no NVIDIA driver|NVIDIA driver on your system")
# a build that links CUDA's libraries, imported where there are none (CuPy 8-12's cupy-cuda11x on a CPU host:
# "CuPy is not correctly installed ... original error: libcublas.so.11: cannot open shared object file")
NO_CUDA_LIBRARY = re.compile(r"lib(cu\w*|nvrtc\w*|cuda)\.so[.\d]*: cannot open shared object file[^\n]*")


NEEDS_GPU = "NeedsGpu"  # a cell not run: its framework has no CPU build and the host no GPU (running/matrix.py)


def needs_a_gpu(record: CellRecord) -> str | None:
    """Why a cell that failed did so for want of a GPU on a host without one (CuPy's "CUDA driver
    version is insufficient" there means no driver at all; a CuPy build that links CUDA's libraries cannot
    import without them), or None: not a failure of the scenario."""
    error: ErrorInfo = record.get("error") or {"type": ""}
    if record.get("status") == Status.UNSUPPORTED and error.get("type") == NEEDS_GPU:  # known before it was made
        return str(error.get("message"))
    said = f"{error.get('message')} {error.get('type')}"
    failed = record.get("status") in (Status.ERROR, Status.UNSUPPORTED)
    library = NO_CUDA_LIBRARY.search(str(error.get("message") or "")) if failed else None
    if not library and (record.get("status") != Status.ERROR or not NO_GPU_ERROR.search(said)):
        return None
    if measured_gpu(record):
        return None  # a GPU was there: the error is the scenario's
    if library:
        return f"it needs CUDA's libraries and an NVIDIA GPU, and neither is here ({library.group(0)[:120]})"
    first = str(error.get("message") or error.get("type")).splitlines()[0][:120]
    return f"it needs an NVIDIA GPU and driver, and none answered here ({first})"


def measured_gpu(record: CellRecord) -> bool:
    """Whether any reading of the cell (its checkpoints, its pre-GPU one) was of a GPU."""
    pre = record.get("pre_gpu")
    points = [*(record.get("checkpoints") or []), *([pre] if pre else [])]
    return any(meter_value(cp.get("readings"), meter) is not None for cp in points for meter in ("nvml_process", "nvml_device"))
