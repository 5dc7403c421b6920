"""Helpers for the integration tests."""
from __future__ import annotations

import os
import subprocess
from typing import Any

import pytest

from harness.definitions import config


def docker_run(image: str, *argv: str) -> str:
    result = subprocess.run(["docker", "run", "--rm", "--network", "none", image, *argv],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def base_or_skip(client: Any, base: str) -> None:
    """A base a build will look for (behind HARNESS_BASE_MIRROR) must be on the engine: CI fails without it
    (.ci/make-bases.sh makes a stand-in of every base the tests build on), elsewhere the test is skipped."""
    import docker.errors

    mirrored = config.mirrored(base)
    try:
        client.images.get(mirrored)
    except docker.errors.ImageNotFound:
        message = (f"no {mirrored}: run .ci/make-bases.sh with HARNESS_BASE_MIRROR set (it makes a stand-in for it "
                   "under that prefix)")
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
