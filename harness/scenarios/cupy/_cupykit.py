"""Helpers shared by the CuPy scenarios (imported from the scenario's folder). Python 3.5+."""
import os

import cupy


def require_device(unsupported):
    """A CUDA device for CuPy, else the scenario's ``unsupported`` with why: without a driver CUDA
    says "driver version is insufficient", so what is true is said instead."""
    try:
        cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # CUDARuntimeError without a driver or a device
        no_driver = not os.path.exists("/proc/driver/nvidia/version")
        raise unsupported("CuPy needs a CUDA device: %s" % ("this host has no NVIDIA driver" if no_driver else exc))
