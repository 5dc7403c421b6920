"""The matrix on a Ray cluster: a local cluster of three nodes (ray.cluster_utils.Cluster: a
head for the driver, two workers with one cell slot each), the docker backend on each node, the
cpu images. Same verdicts as one machine; a node removed mid-run loses no finished record and
its cells finish elsewhere."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT, default_sigint

from harness.judgement.cell import judge_cell
from harness.reporting import aggregate

SCENARIOS = ["torch/del_gc_empty_cache", "torch/del_no_empty_cache", "torch/reference_cycle", "torch/loss_graph_kept"]


@pytest.fixture()
def cluster() -> Any:
    try:
        import ray
        from ray.cluster_utils import Cluster
    except ImportError:
        if os.environ.get("CI") == "true":
            pytest.fail("CI=true but Ray is not installed (the tests session installs .[test,ray])")
        pytest.skip("Ray is not installed: pip install 'gpu-cleanup-matrix[ray]'")
    made = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    workers = [made.add_node(num_cpus=1, resources={"harness_cell": 1}) for _ in range(2)]
    made.wait_for_nodes()
    yield made, workers
    ray.shutdown()
    made.shutdown()


def _matrix(results: Path, *extra: str, address: str | None = None) -> subprocess.Popen[str]:
    argv = [sys.executable, "-m", "harness", "matrix", "--env", "torch", "--variant", "cpu", "--results", str(results)]
    for name in SCENARIOS:
        argv += ["--scenario", name]
    env = dict(os.environ, NO_COLOR="1")
    if address:
        env["RAY_ADDRESS"] = address
        argv += ["--cluster", "ray"]
    return subprocess.Popen([*argv, *extra], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=default_sigint)


def _records(results: Path) -> tuple[Path, list[dict[str, Any]]]:
    (run_dir,) = [p for p in results.iterdir() if p.is_dir()]
    return run_dir, [json.loads(p.read_text()) for p in sorted(run_dir.glob("torch/*.json"))]


def test_cells_spread_over_nodes_with_the_verdicts_of_one_machine(cpu_image: Any, cluster: Any, tmp_path: Path) -> None:
    cpu_image("torch")
    made, workers = cluster
    local = _matrix(tmp_path / "local")
    out, err = local.communicate(timeout=1200)
    assert local.returncode == 0, err[-3000:]
    spread = _matrix(tmp_path / "ray", address=made.address)
    out, err = spread.communicate(timeout=1200)
    assert spread.returncode == 0, err[-3000:]
    assert "backend: ray, 3 node(s)" in err
    (_, one), (run_dir, many) = _records(tmp_path / "local"), _records(tmp_path / "ray")
    assert len(many) == len(SCENARIOS) and {r["status"] for r in many} == {"ok"}
    nodes = {r["node"]["node_id"] for r in many}
    assert nodes <= {w.node_id for w in workers} and len(nodes) == 2  # the head has no cell slot
    ours = {r["scenario"]["name"]: aggregate.outcome(judge_cell(r)) for r in many}
    theirs = {r["scenario"]["name"]: aggregate.outcome(judge_cell(r)) for r in one}
    assert ours == theirs
    assert json.loads((run_dir / "manifest.json").read_text())["backend"] == "ray"
    assert (run_dir / "logs" / "torch").is_dir() and (run_dir / "report.html").is_file()


def test_a_node_removed_mid_run_loses_nothing_and_its_cells_finish_elsewhere(cpu_image: Any, cluster: Any,
                                                                            tmp_path: Path) -> None:
    cpu_image("torch")
    made, workers = cluster
    proc = _matrix(tmp_path, address=made.address)
    deadline = time.monotonic() + 600
    first: dict[str, Any] | None = None
    while first is None and time.monotonic() < deadline and proc.poll() is None:
        found = list(tmp_path.glob("*/torch/*.json"))
        if found:
            first = json.loads(found[0].read_text())
        time.sleep(0.2)
    assert first is not None, proc.communicate()[1][-3000:]
    victim = next(w for w in workers if w.node_id == first["node"]["node_id"])  # it has taken its next cell
    made.remove_node(victim)
    out, err = proc.communicate(timeout=1200)
    assert proc.returncode == 0, err[-3000:]
    run_dir, records = _records(tmp_path)
    assert len(records) == len(SCENARIOS) and {r["status"] for r in records} == {"ok"}, [r["error"] for r in records]
    kept = json.loads(results_path(run_dir, first).read_text())
    assert kept["cell_id"] == first["cell_id"]  # the record finished before the removal is the one kept
    retried = [r for r in records if r["retried"]]
    assert retried and all(r["attempt"] >= 2 and r["node"]["node_id"] != victim.node_id for r in retried)


def results_path(run_dir: Path, record: dict[str, Any]) -> Path:
    from harness.store import results

    return results.cell_path(run_dir, record["env"]["name"], record["scenario"]["name"])


def test_ctrl_c_on_the_driver_cancels_the_cells_and_leaves_no_container(cpu_image: Any, cluster: Any, docker_client: Any,
                                                                       tmp_path: Path) -> None:
    import signal

    from harness.measurement.backends.owned_containers import LABEL_RUN

    cpu_image("torch")
    made, _ = cluster
    proc = _matrix(tmp_path, address=made.address)
    deadline = time.monotonic() + 600
    while not list(tmp_path.glob("*/torch/*.json")):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()[1][-3000:]
        time.sleep(0.2)
    (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=180)
    assert proc.returncode == 130, err[-3000:]
    assert "interrupted" in err
    left = docker_client.containers.list(all=True, filters={"label": f"{LABEL_RUN}={run_dir.name}"})
    assert not left, [c.name for c in left]
    assert (run_dir / "matrix.md").is_file()  # what finished is aggregated
