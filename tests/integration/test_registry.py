"""Images through a registry, as cluster nodes get them: Debian's docker-registry (the CNCF
distribution server) on localhost, an image pushed there, then pulled instead of built."""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from harness.definitions import config
from harness.environments import adhoc, images, prepare


@pytest.fixture()
def registry(tmp_path: Path) -> Any:
    binary = shutil.which("docker-registry")
    if binary is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI=true but docker-registry is not installed (.ci/run installs it)")
        pytest.skip("docker-registry not installed (apt-get install docker-registry)")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = tmp_path / "config.yml"
    config.write_text(f"version: 0.1\nstorage:\n  filesystem:\n    rootdirectory: {tmp_path / 'data'}\n"
                      f"http:\n  addr: 127.0.0.1:{port}\n")
    server = subprocess.Popen([binary, "serve", str(config)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            assert time.monotonic() < deadline and server.poll() is None, "docker-registry did not start"
            time.sleep(0.2)
    yield f"127.0.0.1:{port}"
    server.terminate()
    server.wait(10)


def test_an_image_pushed_once_is_pulled_not_built(docker_client: Any, registry: str) -> None:
    env = adhoc.environment("six==1.16.0", "cpu", ("any",))
    images.build(docker_client, env, "cpu", images.BuildOptions(), lambda text: None)
    assert not images.pull_current(docker_client, env, "cpu", registry)  # the registry is empty
    ref = images.push(docker_client, env, "cpu", registry)
    assert ref == f"{registry}/{config.image_prefix()}/six-1.16.0:cpu-{env.definition_hash('cpu')}"
    for tag in (env.image_tag("cpu"), env.alias_tag("cpu"), ref):
        docker_client.images.remove(tag)
    assert not images.image_current(docker_client, env, "cpu")
    events: list[tuple[str, dict[str, Any]]] = []
    prepare.ready_image(docker_client, env, "cpu", images.BuildOptions(registry=registry),
                        lambda kind, data: events.append((kind, data)))
    assert images.image_current(docker_client, env, "cpu")
    assert [data["tag"] for kind, data in events if kind == "build"] == [
        f"{env.image_tag('cpu')} pulled from {registry}"]
    assert docker_client.images.get(env.alias_tag("cpu")).id == docker_client.images.get(env.image_tag("cpu")).id
    assert not [kind for kind, _ in events if kind == "build-log"]  # nothing was built
