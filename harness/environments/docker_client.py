"""Reaching the Docker engine. Imports the docker SDK lazily.

Only the docker backend, the image builder and `doctor` come here; the process path never does.
"""
from __future__ import annotations

import socket
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
        _unix_socket_answers(engine_address())
        client = docker.from_env(timeout=timeout)
        client.ping()
    except Exception as exc:
        reason = str(exc).splitlines()[0][:160] if str(exc) else type(exc).__name__
        raise DockerUnavailable(
            f"no Docker engine answers at {engine_address()} ({reason}); start it (e.g. `sudo systemctl start docker`) "
            "or run without Docker: --backend process"
        ) from exc
    return client


def _unix_socket_answers(address: str) -> None:
    """Raise OSError when a unix socket engine is not listening: asked before the SDK, whose client
    would otherwise leave its connection open behind the error (a ResourceWarning at some later point)."""
    if not address.startswith("unix://"):
        return
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(5)
        probe.connect(address[len("unix://"):])
