"""Backends run a cell's agent somewhere: a local interpreter, a container.

Orchestration (runner.py) sees only the ``Backend`` / ``RunningCell`` protocols in base.py and
picks a backend by name from ``registry()``. Only the docker backend talks to the engine, and it
is imported lazily so the process path needs neither the docker SDK nor nox.
"""
from __future__ import annotations

from collections.abc import Callable

from .base import Backend

BackendFactory = Callable[..., Backend]


def registry() -> dict[str, BackendFactory]:
    def process(**kwargs: object) -> Backend:
        from .process import ProcessBackend

        return ProcessBackend(**kwargs)  # type: ignore[arg-type]

    def docker(**kwargs: object) -> Backend:
        from .docker import DockerBackend

        return DockerBackend(**kwargs)  # type: ignore[arg-type]

    return {"process": process, "docker": docker}
