"""GPU memory as the driver sees it, through NVML. The only module that imports pynvml.

``Nvml.open()`` never raises: without pynvml, without a driver, or without a GPU it returns an
object whose ``available`` is False and whose ``reason`` says why once; every reading is then
None ("unavailable" is None, never 0).
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

Running = list[tuple[int, int | None]]  # NVML's compute processes on one GPU: (host PID, bytes or None)


@dataclass
class GpuFacts:
    index: int
    name: str
    uuid: str
    total_bytes: int
    mig_mode: bool | None
    compute_capability: tuple[int, int] | None = None


@dataclass
class Nvml:
    available: bool
    reason: str = ""
    driver: str | None = None
    nvml_version: str | None = None
    gpus: list[GpuFacts] = field(default_factory=list)
    _lib: Any = None
    _handles: list[Any] = field(default_factory=list)

    @classmethod
    def open(cls) -> Nvml:
        try:
            import pynvml
        except ImportError:
            return cls(False, "pynvml is not installed (pip install nvidia-ml-py)")
        try:
            pynvml.nvmlInit()
        except Exception as exc:  # NVMLError_LibraryNotFound, _DriverNotLoaded, ...
            return cls(False, f"no NVIDIA driver answers NVML ({exc})")
        try:
            count = pynvml.nvmlDeviceGetCount()
            handles = [pynvml.nvmlDeviceGetHandleByIndex(i) for i in range(count)]
            nvml = cls(True, _lib=pynvml, _handles=handles)
            nvml.driver = _text(pynvml.nvmlSystemGetDriverVersion())
            nvml.nvml_version = _text(pynvml.nvmlSystemGetNVMLVersion())
            nvml.gpus = [nvml._facts(i, h) for i, h in enumerate(handles)]
        except Exception as exc:
            return cls(False, f"NVML answered but could not list GPUs ({exc})")
        if not handles:
            return cls(False, "NVML found no GPU")
        return nvml

    def _facts(self, index: int, handle: Any) -> GpuFacts:
        lib = self._lib
        try:
            mig = bool(lib.nvmlDeviceGetMigMode(handle)[0])
        except Exception:
            mig = None  # not supported on this GPU or driver
        try:
            major, minor = lib.nvmlDeviceGetCudaComputeCapability(handle)
            capability: tuple[int, int] | None = (int(major), int(minor))
        except Exception:
            capability = None
        return GpuFacts(
            index=index,
            name=_text(lib.nvmlDeviceGetName(handle)),
            uuid=_text(lib.nvmlDeviceGetUUID(handle)),
            total_bytes=int(lib.nvmlDeviceGetMemoryInfo(handle).total),
            mig_mode=mig,
            compute_capability=capability,
        )

    def device_used(self, index: int) -> int | None:
        """Used memory of GPU ``index`` (all processes, as nvidia-smi shows), or None."""
        if not self.available:
            return None
        try:
            return int(self._lib.nvmlDeviceGetMemoryInfo(self._handles[index]).used)
        except Exception:
            return None

    def device_reserved(self, index: int) -> int | None:
        """Driver-reserved memory where the driver offers the v2 memory info, else None."""
        if not self.available:
            return None
        lib = self._lib
        try:
            info = lib.nvmlDeviceGetMemoryInfo(self._handles[index], version=lib.nvmlMemory_v2)
            return int(info.reserved)
        except Exception:
            return None

    def running(self, index: int) -> Running | None:
        """NVML's compute processes on GPU ``index``: (host PID, memory or None where N/A); None when the query fails."""
        if not self.available:
            return None
        try:
            running = self._lib.nvmlDeviceGetComputeRunningProcesses(self._handles[index])
        except Exception:
            return None
        return [(int(proc.pid), None if proc.usedGpuMemory is None else int(proc.usedGpuMemory)) for proc in running]

    def processes(self, index: int) -> dict[int, int] | None:
        """Every compute process on GPU ``index`` and its memory (host PIDs), or None when NVML cannot say."""
        running = self.running(index)
        if running is None or any(used is None for _, used in running):
            return None
        found: dict[int, int] = {}
        for pid, used in running:
            found[pid] = found.get(pid, 0) + int(used or 0)
        return found

    def process_used(self, index: int, pids: Iterable[int]) -> int | None:
        """Summed GPU memory of ``pids`` on GPU ``index``.

        0 when NVML lists none of them (they hold no context there yet); None when NVML
        cannot say (query failed, or per-process memory is N/A, as on MIG and some drivers).
        """
        return used_by(self.running(index), pids)

    def close(self) -> None:
        if self.available:
            try:
                self._lib.nvmlShutdown()
            except Exception:
                pass
            self.available = False


def used_by(running: Running | None, pids: Iterable[int]) -> int | None:
    """Summed memory of ``pids`` in one GPU's listing (``Nvml.running``): 0 when none is listed, None
    when the listing failed or their memory is N/A."""
    if running is None:
        return None
    wanted = set(pids)
    mine = [used for pid, used in running if pid in wanted]
    return None if any(used is None for used in mine) else sum(int(used or 0) for used in mine)


def _text(value: str | bytes) -> str:
    return value.decode() if isinstance(value, bytes) else value
