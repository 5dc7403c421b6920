"""Helpers for the integration tests."""
from __future__ import annotations

import subprocess


def docker_run(image: str, *argv: str) -> str:
    result = subprocess.run(["docker", "run", "--rm", "--network", "none", image, *argv],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout
