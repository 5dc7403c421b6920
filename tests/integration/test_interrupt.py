"""Ctrl-C or SIGTERM in the middle of a cell leaves no container behind."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from helpers import ROOT, SCENARIOS, default_sigint

from harness.measurement.backends.owned_containers import LABEL_RUN


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
        preexec_fn=default_sigint,
    )
    try:
        deadline = time.monotonic() + 180  # a 2-core machine busy with the suite's builds can take a while
        while not _labelled(docker_client):
            assert proc.poll() is None, proc.communicate()[1]
            if time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"no container started in 180 s; the harness said: {proc.communicate()[1][-3000:]}")
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


def test_resume_finishes_an_interrupted_matrix(cpu_image, docker_client, tmp_path: Path) -> None:
    cpu_image("torch")
    scenarios = ["torch/del_gc_empty_cache", "torch/del_no_empty_cache", "torch/reference_cycle", "torch/loss_graph_kept"]
    argv = [sys.executable, "-m", "harness", "matrix", "--env", "torch", "--variant", "cpu", "--jobs", "1",
            "--results", str(tmp_path)]
    for name in scenarios:
        argv += ["--scenario", name]
    proc = subprocess.Popen(argv, cwd=ROOT, env=dict(os.environ, NO_COLOR="1"), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint)
    try:
        deadline = time.monotonic() + 300
        while not list(tmp_path.glob("*/torch/*.json")):
            assert proc.poll() is None, proc.communicate()[1][-2000:]
            assert time.monotonic() < deadline, "no cell finished"
            time.sleep(0.1)
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    assert f"kept in {run_dir}; `nox -s matrix -- --resume {run_dir}`" in stderr.replace("\n", "")  # the real folder
    statuses = {p.name: json.loads(p.read_text())["status"] for p in run_dir.glob("torch/*.json")}
    assert set(statuses.values()) <= {"ok", "interrupted"}  # a cut cell blames the user's Ctrl-C, never the scenario
    before = {p.name: p.stat().st_mtime_ns for p in run_dir.glob("torch/*.json") if statuses[p.name] == "ok"}
    assert 1 <= len(before) < len(scenarios)
    resumed = subprocess.run([sys.executable, "-m", "harness", "matrix", "--resume", str(run_dir)], cwd=ROOT,
                             env=dict(os.environ, NO_COLOR="1"), capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    after = {p.name: p.stat().st_mtime_ns for p in run_dir.glob("torch/*.json")}
    assert len(after) == len(scenarios)
    assert all(after[name] == stamp for name, stamp in before.items())  # finished cells were not run again
    assert f"{len(scenarios) - len(before)} cells in torch" in resumed.stderr  # interrupted ones ran again
    matrix = json.loads((run_dir / "matrix.json").read_text())
    assert {c["status"] for row in matrix["cells"].values() for c in row.values()} == {"ok"}
    assert not _labelled(docker_client)


def _stop_while_starting(backend, tmp_path: Path, during_start: bool = False) -> None:
    """Ctrl-C lands while a worker is starting its next cell, the race a fast cell opens: the
    start that was in flight must end its own container or process, never outlive the run.
    ``during_start``: the signal lands while the start's request is at the engine, not before."""
    import _thread

    from harness.measurement import scenario
    from harness.measurement.backends.base import closing
    from harness.measurement.nvml import Nvml
    from harness.measurement.runner import CellOptions, run_cell
    from harness.running.slots import run_on_slots

    item = scenario.load(SCENARIOS / "hangs.py")
    options = CellOptions(run_id="stop-while-starting", run_dir=tmp_path, env_name="torch", env_facts={}, params={},
                          timeout=120)

    def one(env, scenario_item, slot) -> dict:
        if during_start:
            threading.Timer(1.0, _thread.interrupt_main).start()
        else:
            _thread.interrupt_main()
            assert closing.wait(10), "the run never began stopping"
        return run_cell(backend, scenario_item, options, Nvml(False, "not needed"))

    # interrupt_main does nothing while SIGINT is ignored (the suite started as a background job)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            run_on_slots([(None, item)], [None], one, None)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert not closing.is_set()  # the next run in this process starts cells again


def test_a_container_being_created_as_the_run_stops_is_removed(cpu_image, docker_client, tmp_path: Path) -> None:
    from harness.measurement.backends.docker import DockerBackend

    _stop_while_starting(DockerBackend(client=docker_client, image=cpu_image("torch")), tmp_path)
    assert not _labelled(docker_client)


def test_a_create_still_at_a_slow_engine_when_the_run_stops_leaves_nothing(cpu_image, docker_client,
                                                                         tmp_path: Path) -> None:
    """A busy engine answers a create after the run has stopped waiting for its workers (10 s): the
    run's last sweep cannot list a container that does not exist yet, so the stop waits for it."""
    from harness.measurement.backends.docker import DockerBackend

    answered = threading.Event()

    class SlowEngine(DockerBackend):
        def _create(self, *args):
            time.sleep(12)
            try:
                return super()._create(*args)
            finally:
                answered.set()

    _stop_while_starting(SlowEngine(client=docker_client, image=cpu_image("torch")), tmp_path, during_start=True)
    # the run has stopped: the process may exit now, and its daemon workers with it
    assert answered.is_set(), "the run stopped while a create was still at the engine"
    assert not _labelled(docker_client), "a container created as the run stopped outlived it"


def test_a_process_being_started_as_the_run_stops_is_ended(tmp_path: Path) -> None:
    from helpers import processes_with

    from harness.measurement.backends.process import ProcessBackend

    _stop_while_starting(ProcessBackend(python=sys.executable), tmp_path)
    time.sleep(0.5)
    assert not processes_with(str(SCENARIOS / "hangs.py"))
