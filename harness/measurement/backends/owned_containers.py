"""The containers this tool owns: named and labelled as its own, known from before their create
request leaves, and removed on every path out (normal end, Ctrl-C, a crash of the harness through
atexit, or ``harness clean`` after a killed harness)."""
from __future__ import annotations

import atexit
import os
import threading
import time
from collections.abc import Callable
from typing import Any

NAME_PREFIX = "gpu-cleanup-matrix-"
LABEL_RUN = "harness.run-id"
LABEL_CELL = "harness.cell-id"
LABEL_USER = "harness.user"  # who started the run: `clean` removes that user's containers only


def user() -> str:
    """This user, as the engine's other users cannot be (a login name and a uid, both)."""
    import getpass

    try:
        name = getpass.getuser()
    except Exception:
        name = "unknown"
    return f"{name}:{os.getuid()}"

def engine_address() -> str:
    return os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")


def engine_silent(client: Any) -> str | None:
    """Why the engine does not answer (it stopped, its socket went), or None while it does."""
    try:
        client.ping()
        return None
    except Exception:
        return f"the Docker engine stopped answering at {engine_address()}"


_live: dict[str, Any] = {}
_creating: dict[str, Any] = {}  # name -> client: containers whose create request is still at the engine
_live_lock = threading.Condition()


REMOVE_PATIENCE_S = 15.0
CREATE_PATIENCE_S = 60.0


def remove_container(container: Any) -> None:
    """Force-remove until the engine says it is gone: while a start or another removal of the same
    container is in flight the engine answers 409, and giving up there can leave it behind."""
    deadline = time.monotonic() + REMOVE_PATIENCE_S
    while True:
        try:
            container.remove(force=True)
            break
        except Exception as exc:
            if getattr(exc, "status_code", None) == 404 or time.monotonic() > deadline or engine_silent(container.client):
                break  # gone (or the engine itself is gone: nothing more to do from here)
            time.sleep(0.2)
    with _live_lock:
        _live.pop(container.id, None)


@atexit.register
def remove_live_containers() -> None:
    """A harness that dies of an exception (or SIGTERM turned into SystemExit) leaves nothing. A
    create still at the engine is waited for: listing containers cannot see it yet, and on a busy
    engine it can land after the run's last sweep and outlive it."""
    with _live_lock:
        _live_lock.wait_for(lambda: not _creating, timeout=CREATE_PATIENCE_S)
        containers, stragglers = list(_live.values()), dict(_creating)
    for container in containers:
        remove_container(container)
    for name, client in stragglers.items():  # the engine never answered: remove it by its name
        try:
            remove_container(client.containers.get(name))
        except Exception:
            pass


def create_tracked(client: Any, name: str, create: Callable[[], Any]) -> Any:
    """Create a container, known to ``remove_live_containers`` from before the request leaves."""
    with _live_lock:
        _creating[name] = client
    container = None
    try:
        container = create()
        return container
    finally:
        with _live_lock:
            _creating.pop(name, None)
            if container is not None:
                _live[container.id] = container
            _live_lock.notify_all()


def remove_labelled(client: Any, run_id: str | None = None, everyone: bool = False) -> int:
    """Remove the containers this user's runs left (``harness clean``; ``everyone``: every user's and
    those labelled before runs said whose), or those of one run (the last sweep of a stopped run: a
    start in flight may have finished after the cells were ended)."""
    if run_id:
        wanted = [f"{LABEL_RUN}={run_id}"]
    else:
        wanted = [LABEL_RUN] if everyone else [LABEL_RUN, f"{LABEL_USER}={user()}"]
    containers = client.containers.list(all=True, filters={"label": wanted})
    for container in containers:
        remove_container(container)
    return len(containers)
