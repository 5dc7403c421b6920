"""A CDI spec for the host's NVIDIA driver, written without the NVIDIA Container Toolkit.

Docker 25+ with CDI on gives a container the devices and mounts a spec lists
(``--device nvidia.com/gpu=all``). ``nvidia-ctk cdi generate`` writes such a spec from the
driver's files; this module writes the same kind of spec from what the host shows: the
/dev/nvidia* nodes, the driver's user-space libraries as the linker cache (``ldconfig -p``)
and the driver's folders list them, and its tools (nvidia-smi, ...). The toolkit mounts the
libraries at their host paths and runs a hook that updates the container's linker cache; there
is no hook without the toolkit, so the libraries are mounted under their own names in
/usr/lib/x86_64-linux-gnu, a folder the dynamic loader of Debian- and Ubuntu-based images
(every CUDA base) searches by default, and nothing of the image's environment is overridden.
"""
from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

from harness.common.errors import UsageError
from harness.measurement import gpu_access

KIND = "nvidia.com/gpu"
CDI_VERSION = "0.5.0"
CONTAINER_LIB_DIR = "/usr/lib/x86_64-linux-gnu"
CONTAINER_BIN_DIR = "/usr/bin"
DRIVER_TOOLS = ("nvidia-smi", "nvidia-debugdump", "nvidia-cuda-mps-control", "nvidia-cuda-mps-server")
TOOL_DIRS = ("/usr/local/nvidia/bin", "/usr/bin", "/usr/local/bin")
MOUNT_OPTIONS = ["ro", "nosuid", "nodev", "bind"]
SPEC_NAME = "nvidia.json"


def driver_tools(libs: list[str], search: tuple[str, ...] = TOOL_DIRS) -> list[str]:
    """The driver's tools: next to its libraries (a lib64 folder's ../bin) first, then the usual folders."""
    folders = [str(Path(lib).parent.parent / "bin") for lib in libs] + list(search)
    found: dict[str, str] = {}
    for tool in DRIVER_TOOLS:
        for folder in dict.fromkeys(folders):
            path = os.path.join(folder, tool)
            if os.path.isfile(path) and os.access(path, os.X_OK):
                found.setdefault(tool, path)
                break
    return list(found.values())


def build_spec(nodes: list[str], libs: list[str], tools: list[str]) -> dict[str, Any]:
    """The spec: a device per GPU node (by index) and ``all``; control nodes, libraries and tools for every device."""
    gpus = sorted((n for n in nodes if re.search(r"/nvidia\d+$", n)), key=lambda n: int(re.sub(r"\D", "", Path(n).name)))
    control = [n for n in nodes if n not in gpus]
    if not gpus or not any(Path(lib).name.startswith("libcuda.so") for lib in libs):
        raise UsageError("no NVIDIA GPU device nodes or no libcuda on this host: is the NVIDIA driver installed and "
                         "loaded (`nvidia-smi`)? A CDI spec describes the driver, so it needs one")
    mounts = [{"hostPath": os.path.realpath(lib), "containerPath": f"{CONTAINER_LIB_DIR}/{Path(lib).name}",
               "options": MOUNT_OPTIONS} for lib in libs]
    mounts += [{"hostPath": os.path.realpath(tool), "containerPath": f"{CONTAINER_BIN_DIR}/{Path(tool).name}",
                "options": MOUNT_OPTIONS} for tool in tools]
    devices = [{"name": Path(node).name.removeprefix("nvidia"), "containerEdits": {"deviceNodes": [{"path": node}]}}
               for node in gpus]
    devices.append({"name": "all", "containerEdits": {"deviceNodes": [{"path": node} for node in gpus]}})
    return {"cdiVersion": CDI_VERSION, "kind": KIND, "devices": devices,
            "containerEdits": {"deviceNodes": [{"path": node} for node in control], "mounts": mounts}}


def host_spec(dev: str = "/dev", ldconfig_output: str | None = None, search: list[str] | None = None,
              tool_dirs: tuple[str, ...] = TOOL_DIRS) -> dict[str, Any]:
    """The spec for this host's driver, from its device nodes, linker cache and folders."""
    libs = gpu_access.driver_libraries(ldconfig_output, search)
    return build_spec(gpu_access.device_nodes(dev), libs, driver_tools(libs, tool_dirs))


def other_specs(folder: Path) -> list[Path]:
    """Specs of the same kind already there (from nvidia-ctk, say): two would both claim nvidia.com/gpu=all."""
    found = []
    for path in sorted(folder.glob("*")) if folder.is_dir() else []:
        if path.name == SPEC_NAME or path.suffix not in (".json", ".yaml", ".yml"):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if re.search(r'["\']?kind["\']?\s*:\s*["\']?nvidia\.com/gpu\b', text):
            found.append(path)
    return found


def write_spec(spec: dict[str, Any], folder: Path, force: bool = False) -> Path:
    """Write ``spec`` as folder/nvidia.json (atomically); refuse where another nvidia.com/gpu spec exists."""
    clash = other_specs(folder)
    if clash and not force:
        raise UsageError(f"{', '.join(map(str, clash))} already describes {KIND}: a second spec would claim the same "
                         "devices; keep that one (`--gpu-mode cdi` uses it), or remove it, or pass --force")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / SPEC_NAME
        tmp = folder / f".{SPEC_NAME}.tmp"
        tmp.write_text(json.dumps(spec, indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, path)
    except PermissionError as exc:
        raise UsageError(f"cannot write {folder} ({exc.strerror}): run as root (sudo), or give --output DIR "
                         "and add DIR to the engine's cdi-spec-dirs") from exc
    return path


def have_tool(name: str = "nvidia-ctk") -> bool:
    return shutil.which(name) is not None
