"""Ctrl-C or SIGTERM in the middle of a cell leaves no container behind."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import ROOT, SCENARIOS

from harness.backends.docker import LABEL_RUN


def _labelled(client) -> list:
    return client.containers.list(all=True, filters={"label": LABEL_RUN})


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupting_the_harness_removes_its_container(sig: int, cpu_image, docker_client, tmp_path: Path) -> None:
    cpu_image("torch")
    assert not _labelled(docker_client)
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness", "run", "--backend", "docker", "--env", "torch", "--variant", "cpu",
         "--timeout", "120", "--param", "pidfile=/tmp/child.pid", "--results", str(tmp_path), str(SCENARIOS / "hangs.py")],
        cwd=ROOT, env=dict(os.environ, NO_COLOR="1"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not _labelled(docker_client):
            assert proc.poll() is None, proc.communicate()[1]
            assert time.monotonic() < deadline, "no container started"
            time.sleep(0.2)
        time.sleep(2)  # the scenario is now hanging inside its container
        proc.send_signal(sig)
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode != 0
    assert "interrupted" in stderr
    assert not _labelled(docker_client), "the interrupted cell's container is still there"
