"""`clean` on a shared engine: this user's leftovers go, another user's stay unless --all-users."""
from __future__ import annotations

import sys
import uuid
from typing import Any

from helpers import harness_cli

from harness.measurement.backends.owned_containers import LABEL_RUN, LABEL_USER, user


def _leftover(docker_client: Any, image: str, owner: str | None) -> Any:
    """A container as a killed run leaves it: created, labelled as the tool's, never removed."""
    labels = {LABEL_RUN: f"test-clean-{uuid.uuid4().hex[:8]}", **({LABEL_USER: owner} if owner else {})}
    return docker_client.containers.create(image, ["true"], labels=labels, network_mode="none")


def _exists(docker_client: Any, container: Any) -> bool:
    return any(c.id == container.id for c in docker_client.containers.list(all=True, filters={"label": LABEL_RUN}))


def test_clean_removes_this_users_leftovers_and_all_users_the_rest(docker_client: Any, cpu_image: Any) -> None:
    image = cpu_image("torch")
    mine = _leftover(docker_client, image, user())
    theirs = _leftover(docker_client, image, "someone-else:4242")
    unowned = _leftover(docker_client, image, None)  # from a version before runs said whose
    try:
        result = harness_cli("clean")
        assert result.returncode == 0, result.stderr
        assert f"for {user()}" in result.stderr
        assert not _exists(docker_client, mine)
        assert _exists(docker_client, theirs) and _exists(docker_client, unowned)
        result = harness_cli("clean", "--all-users")
        assert result.returncode == 0, result.stderr
        assert not _exists(docker_client, theirs) and not _exists(docker_client, unowned)
    finally:
        for container in (mine, theirs, unowned):
            try:
                container.remove(force=True)
            except Exception:
                print(f"already gone: {container.id[:12]}", file=sys.stderr)
