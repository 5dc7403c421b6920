"""Integration tests run the product against a real Docker engine.

With CI=true a missing engine fails these tests; elsewhere they are skipped. Images are built
through the harness itself (layer-cached, so a second build is quick). The wheelhouse for builds
comes from HARNESS_WHEELHOUSE: CI points it at this machine's wheel folder (a CPU build of torch),
which keeps workplace specifics out of the product.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from helpers import TEST_IMAGE_PREFIX

from harness.common.errors import HarnessError
from harness.definitions import config
from harness.environments import images
from harness.measurement.backends.owned_containers import LABEL_RUN, remove_container


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The ``docker`` marker on every test that reaches the engine (through docker_client, cpu_image...),
    so `-m docker` and `-m "not docker"` select what they say (a conftest's pytestmark marks nothing)."""
    for item in items:
        if "docker_client" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.docker)


def _wheelhouse() -> Path | None:
    value = os.environ.get("HARNESS_WHEELHOUSE")
    return Path(value) if value else None


def _remove_leftovers_of_killed_sessions(client: Any) -> None:
    """A test session killed with its engine (a machine restarted mid-run) leaves exited containers
    of the test images, which would fail every 'nothing left behind' check after it. They are the
    tests' own, so they go; a user's containers (other images) and running ones are never touched."""
    if os.environ["HARNESS_IMAGE_PREFIX"] != TEST_IMAGE_PREFIX:
        return  # the tests were pointed at other images: whose leftovers those are is not known
    for container in client.containers.list(all=True, filters={"label": LABEL_RUN}):
        if container.status != "running" and container.attrs["Config"]["Image"].startswith(f"{TEST_IMAGE_PREFIX}/"):
            remove_container(container)


@pytest.fixture(scope="session")
def docker_client() -> Any:
    from harness.environments.docker_client import connect

    try:
        client = connect(timeout=300)
    except HarnessError as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but no Docker engine: {exc.message}")
        pytest.skip(exc.message)
    _remove_leftovers_of_killed_sessions(client)
    yield client
    left = client.containers.list(all=True, filters={"label": LABEL_RUN})
    assert not left, f"containers left behind: {[c.name for c in left]}"


@pytest.fixture(scope="session")
def environments() -> dict[str, config.EnvDef]:
    return config.load_environments()


@pytest.fixture(scope="session")
def build_options() -> images.BuildOptions:
    """How the tests build: with the wheelhouse CI hands over, as `nox -s images` did before them."""
    return images.BuildOptions(wheelhouse=_wheelhouse())


@pytest.fixture(scope="session")
def cpu_image(docker_client: Any, environments: dict[str, config.EnvDef], build_options: images.BuildOptions):
    """Build (or confirm, through the layer cache) an env's cpu image; returns its tag."""
    built: dict[str, str] = {}

    def get(name: str) -> str:
        if name not in built:
            env = environments[name]
            if not images.image_current(docker_client, env, "cpu", build_options):
                images.build(docker_client, env, "cpu", build_options, lambda text: None)
            built[name] = env.image_tag("cpu")
        return built[name]

    return get
