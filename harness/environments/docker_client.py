"""Reaching the Docker engine. Imports the docker SDK lazily.

Only the docker backend, the image builder and `doctor` come here; the process path never does.
"""
from __future__ import annotations

from typing import Any

from harness.common.errors import DockerUnavailable
from harness.measurement.backends.owned_containers import engine_address as engine_address  # where the engine is asked for


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
