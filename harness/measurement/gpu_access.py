"""How a container gets the GPU: the mode, chosen from what the host offers, and its settings.

  gpus     a DeviceRequest for all GPUs, as ``docker run --gpus all``: the NVIDIA runtime is
           registered with the engine, or Docker >= 29.2 turns the request into CDI devices
           (its ``nvidia`` device driver does when ``nvidia-cdi-hook`` is on its PATH)
  cdi      the ``nvidia.com/gpu=all`` CDI device (CDI specs exist and the engine reads them)
  devices  the /dev/nvidia* nodes passed explicitly and the driver's libraries mounted
           read-only: for hosts with a driver but no toolkit
  none     no GPU: no driver, or nothing to pass

Pure logic over ``docker info`` and the host's paths, so the choice is unit-tested on recorded
engine outputs; the docker backend applies the result.
"""
from __future__ import annotations

import glob
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from harness.common.errors import UsageError, suggest

GpuMode = Literal["gpus", "cdi", "devices", "none"]
MODES: tuple[GpuMode, ...] = ("gpus", "cdi", "devices", "none")
CDI_DIRS = ("/etc/cdi", "/var/run/cdi")
DRIVER_MOUNT = "/opt/harness/nvidia-driver"
# The driver's compute and utility libraries, as the container toolkit mounts them: PTX JIT needs
# libnvidia-gpucomp since driver 550 (TF 2.7 runs on Hopper only by PTX JIT).
DRIVER_LIBS = ("libcuda.so", "libnvidia-ml.so", "libnvidia-ptxjitcompiler.so", "libnvidia-nvvm.so", "libcudadebugger.so",
               "libnvidia-gpucomp.so", "libnvidia-cfg.so")


CDI_HOOK = "nvidia-cdi-hook"
# moby#50228, first released in Docker Engine 29.2.0: with nvidia-cdi-hook on dockerd's PATH the
# daemon's `nvidia` device driver answers `--gpus all` with the CDI device nvidia.com/gpu=all.
GPUS_THROUGH_CDI = (29, 2)


@dataclass(frozen=True)
class GpuAccess:
    mode: GpuMode
    reason: str
    devices: tuple[str, ...] = ()
    mounts: tuple[tuple[str, str], ...] = ()  # (host path, container path), read-only
    environment: dict[str, str] = field(default_factory=dict)


def _cdi_specs(cdi_dirs: tuple[str, ...]) -> list[str]:
    return sorted(p for d in cdi_dirs for p in glob.glob(os.path.join(d, "*")) if "nvidia" in os.path.basename(p))


def _engine_reads_cdi(info: dict[str, Any]) -> bool:
    # Docker 25+ lists the folders it reads CDI specs from; older engines have no such key.
    return bool(info.get("CDISpecDirs"))


def engine_version(info: dict[str, Any]) -> tuple[int, int]:
    parts = str(info.get("ServerVersion") or "0").split(".")
    numbers = [int(p) if p.isdigit() else 0 for p in (parts + ["0"])[:2]]
    return numbers[0], numbers[1]


def _gpus_through_cdi(info: dict[str, Any], specs: list[str], cdi_hook: str) -> str | None:
    """Why `--gpus all` works through CDI on this engine, or None.

    The daemon says nothing of its device drivers, so this reads what decides them: the engine's
    version, nvidia-cdi-hook where the toolkit puts it (dockerd's PATH is the host's on a local
    engine), and an nvidia.com/gpu device the engine can resolve (its own list, Docker >= 28.2, or
    a spec in the folders it reads). A wrong guess fails the cell's start with the way out.
    """
    if engine_version(info) < GPUS_THROUGH_CDI or not cdi_hook:
        return None
    devices = [str(d.get("ID")) for d in info.get("DiscoveredDevices") or []
               if str(d.get("ID", "")).startswith("nvidia.com/gpu=")]
    if not devices and not (specs and _engine_reads_cdi(info)):
        return None
    return (f"Docker {info.get('ServerVersion')} turns --gpus into CDI devices ({CDI_HOOK} at {cdi_hook}; "
            f"{', '.join(devices) if devices else 'specs ' + ', '.join(specs)})")


def device_nodes(dev: str = "/dev") -> list[str]:
    names = sorted(glob.glob(os.path.join(dev, "nvidia[0-9]*")))
    names += [os.path.join(dev, n) for n in ("nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "nvidia-modeset")]
    return [n for n in names if os.path.exists(n)]


LIBRARY_DIRS = ("/usr/local/nvidia/lib64", "/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib/wsl/lib")


def _scan_library_dirs(dirs: list[str]) -> list[str]:
    found = []
    for folder in dirs:
        for lib in DRIVER_LIBS:
            for path in sorted(glob.glob(os.path.join(folder, lib + ".1"))):
                if path not in found:
                    found.append(path)
    return found


def driver_libraries(ldconfig_output: str | None = None, search: list[str] | None = None) -> list[str]:
    """The driver's user-space libraries (libcuda, libnvidia-ml, ...) as the host's linker knows them.

    Where the linker cache does not list them (a driver reached through LD_LIBRARY_PATH), the
    folders of LD_LIBRARY_PATH and the usual driver folders are searched.
    """
    if ldconfig_output is None:
        try:
            ldconfig_output = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, timeout=20).stdout
        except (OSError, subprocess.SubprocessError):
            ldconfig_output = ""
    found, names = [], set()
    for line in ldconfig_output.splitlines():
        if "=>" not in line:
            continue
        name, path = line.split("=>", 1)
        name, path = name.strip().split(" ")[0], path.strip()
        # The first entry of a name is the one the linker takes; a second (the same driver seen
        # through another folder, as on hosts that also mount it under /usr/local/nvidia) would
        # be a duplicate mount point.
        if ("x86-64" in line or "64bit" in line) and name not in names:
            if any(name.startswith(lib) for lib in DRIVER_LIBS):
                found.append(path)
                names.add(name)
    if not found:
        if search is None:
            search = [d for d in os.environ.get("LD_LIBRARY_PATH", "").split(":") if d] + list(LIBRARY_DIRS)
        found = _scan_library_dirs(search)
    return found


def refused_hint(mode: GpuMode, message: str) -> str | None:
    """The way out when the engine refused a cell's GPU request, or None when it was something else."""
    if mode == "gpus" and "could not select device driver" in message:
        return (f"the engine has no NVIDIA device driver for --gpus: install the NVIDIA Container Toolkit (Docker >= "
                f"{GPUS_THROUGH_CDI[0]}.{GPUS_THROUGH_CDI[1]} needs only {CDI_HOOK} on dockerd's PATH and a CDI spec), "
                "or run with --gpu-mode cdi")
    if mode in ("gpus", "cdi") and "unresolvable CDI devices" in message:
        return ("the engine knows no CDI device nvidia.com/gpu=all: write a spec for this driver "
                "(`nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml`, or `sudo gpu-cleanup-matrix cdi-spec`)")
    return None


def devices_access(dev: str = "/dev", ldconfig_output: str | None = None, search: list[str] | None = None) -> GpuAccess | None:
    nodes = device_nodes(dev)
    libs = driver_libraries(ldconfig_output, search)
    if not nodes or not any(Path(lib).name.startswith("libcuda.so") for lib in libs):
        return None
    mounts = []
    for lib in libs:
        real = os.path.realpath(lib)
        mounts.append((real, f"{DRIVER_MOUNT}/{Path(lib).name}"))
    return GpuAccess("devices", f"{len(nodes)} device nodes and {len(libs)} driver libraries passed explicitly",
                     devices=tuple(nodes), mounts=tuple(mounts), environment={"LD_LIBRARY_PATH": DRIVER_MOUNT})


def for_run(info: dict[str, Any], variant: str, nvml_available: bool, override: str | None) -> GpuAccess:
    """The access mode of a run: a GPU only for the gpu variant on a host NVML answers on,
    unless a mode is asked for explicitly."""
    wants_gpu = variant == "gpu" and nvml_available
    if not wants_gpu and override is None:  # nothing was asked for: say why containers get no GPU
        return GpuAccess("none", "no NVIDIA GPU answers NVML here" if not nvml_available
                         else f"the {variant} variant runs without a GPU")
    return choose(info, wants_gpu, override)


def choose(
    info: dict[str, Any],
    nvml_available: bool,
    override: str | None = None,
    *,
    cdi_dirs: tuple[str, ...] = CDI_DIRS,
    dev: str = "/dev",
    ldconfig_output: str | None = None,
    search: list[str] | None = None,
    cdi_hook: str | None = None,
) -> GpuAccess:
    """The GPU access mode for containers on this host, and why (cdi_hook: where nvidia-cdi-hook
    is, '' for nowhere; by default looked up on PATH)."""
    if override is not None and override not in MODES:
        raise UsageError(f"unknown GPU mode {override!r}{suggest(override, list(MODES))}")
    runtimes = sorted((info.get("Runtimes") or {}).keys())
    specs = _cdi_specs(cdi_dirs)
    if override == "none":
        return GpuAccess("none", "asked for")
    if override == "gpus":
        return GpuAccess("gpus", "asked for")
    if override is None and nvml_available and "nvidia" in runtimes:
        return GpuAccess("gpus", "the NVIDIA runtime is registered with the engine")
    through_cdi = _gpus_through_cdi(info, specs, (shutil.which(CDI_HOOK) or "") if cdi_hook is None else cdi_hook)
    if override is None and nvml_available and through_cdi:
        return GpuAccess("gpus", through_cdi)
    if override == "cdi" or (override is None and nvml_available and specs and _engine_reads_cdi(info)):
        return GpuAccess("cdi", "asked for" if override else f"CDI specs found ({', '.join(specs)})")
    if override == "devices" or (override is None and nvml_available):
        access = devices_access(dev, ldconfig_output, search)
        if access is not None:
            return access
        if override == "devices":
            raise UsageError("--gpu-mode devices: no /dev/nvidia* nodes or no libcuda here (is the NVIDIA driver loaded?)")
        return GpuAccess("none", f"a driver but no way into containers (runtimes: {', '.join(runtimes) or 'none'}; "
                                 "no CDI specs; no device nodes or libcuda): install the NVIDIA Container Toolkit")
    return GpuAccess("none", "no NVIDIA driver (NVML) on this host")
