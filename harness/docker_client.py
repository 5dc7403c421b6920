"""Reaching the Docker engine, and what it offers for GPUs. Imports the docker SDK lazily.

Only the docker backend, the image builder and `doctor` come here; the process path never does.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import DockerUnavailable

CDI_DIRS = (Path("/etc/cdi"), Path("/var/run/cdi"))


def engine_address() -> str:
    return os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")


def connect(timeout: int = 120) -> Any:
    """A docker client whose engine has answered a ping, or DockerUnavailable saying what to do."""
    try:
        import docker
    except ImportError as exc:
        raise DockerUnavailable("the docker SDK is not installed (pip install docker), or use --backend process") from exc
    try:
        client = docker.from_env(timeout=timeout)
        client.ping()
    except Exception as exc:
        reason = str(exc).splitlines()[0][:160] if str(exc) else type(exc).__name__
        raise DockerUnavailable(
            f"no Docker engine answers at {engine_address()} ({reason}); start it (e.g. `sudo systemctl start docker`) "
            "or run without Docker: --backend process"
        ) from exc
    return client


@dataclass(frozen=True)
class GpuSupport:
    """How containers can get a GPU here: the NVIDIA runtime, CDI specs, or not at all."""

    nvidia_runtime: bool
    cdi: bool
    detail: str

    @property
    def any(self) -> bool:
        return self.nvidia_runtime or self.cdi


def gpu_support(client: Any) -> GpuSupport:
    info = client.info()
    runtimes = sorted((info.get("Runtimes") or {}).keys())
    nvidia = "nvidia" in runtimes
    cdi_specs = [p.name for d in CDI_DIRS if d.is_dir() for p in d.iterdir() if "nvidia" in p.name]
    detail = f"runtimes: {', '.join(runtimes) or 'none'}; CDI specs: {', '.join(cdi_specs) or 'none'}"
    return GpuSupport(nvidia_runtime=nvidia, cdi=bool(cdi_specs), detail=detail)
