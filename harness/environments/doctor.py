"""`doctor`: what this host can run, one line per check, each with the fix when it fails."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.common.errors import HarnessError
from harness.common.units import human_bytes
from harness.environments import config, images
from harness.measurement import gpu_access
from harness.measurement.nvml import Nvml


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool | None  # None: informational, neither good nor bad
    detail: str
    fix: str = ""


def run_checks(nvml: Nvml) -> list[Check]:
    checks = []
    if nvml.available:
        checks.append(Check("NVIDIA driver (NVML)", True, f"driver {nvml.driver}, NVML {nvml.nvml_version}"))
        for gpu in nvml.gpus:
            mig = {True: ", MIG on: per-process memory may be n/a", False: "", None: ""}[gpu.mig_mode]
            checks.append(Check(f"GPU {gpu.index}", None, f"{gpu.name}, {human_bytes(gpu.total_bytes)}{mig}"))
    else:
        checks.append(Check("NVIDIA driver (NVML)", False, nvml.reason,
                            "install the NVIDIA driver for GPU columns; without it the matrix runs the cpu variant, RSS only"))
    client: Any = None
    try:
        from harness.environments.docker_client import connect, engine_address

        client = connect(timeout=10)
        version = client.version().get("Version", "?")
        checks.append(Check("Docker engine", True, f"{engine_address()} answers, version {version}"))
    except HarnessError as exc:
        checks.append(Check("Docker engine", False, exc.message.split(";")[0],
                            "start Docker (`sudo systemctl start docker`), or use --backend process"))
    if client is not None:
        access = gpu_access.choose(client.info(), nvml.available)
        ok = (access.mode != "none") if nvml.available else None
        fix = "" if ok is not False else "install the NVIDIA Container Toolkit (nvidia-ctk runtime configure) and restart Docker"
        checks.append(Check("container GPU access", ok, f"mode {access.mode}: {access.reason}", fix))
        variant = "gpu" if nvml.available else "cpu"
        for env in config.load_environments().values():
            if env.kind != "build" or variant not in env.variants:
                continue
            tag = env.image_tag(variant)
            current = images.image_current(client, env, variant)
            checks.append(Check(f"image {tag}", current, "built and current" if current else "missing or out of date",
                                "" if current else "nox -s images (nox -s matrix builds it too)"))
    return checks
