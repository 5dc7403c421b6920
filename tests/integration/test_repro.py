"""Bug-report snippets, unmodified, through the docker backend in the cpu images: the automatic
checkpoints land on the lines that clean up, in every env (Python 2.7 included)."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT

SNIPPETS = ROOT / "tests" / "repro"


def _repro(script: str | Path, envs: list[str], results: Path) -> tuple[subprocess.CompletedProcess[str], Path]:
    argv = [sys.executable, "-m", "harness", "repro", str(SNIPPETS / script), "--results", str(results)]
    for env in envs:
        argv += ["--env", env]
    result = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=1200, env=dict(os.environ, NO_COLOR="1"))
    runs = [p for p in results.iterdir() if p.is_dir()]
    return result, runs[0] if runs else results


def _labels(run_dir: Path, env: str, stem: str) -> list[str]:
    record = json.loads((run_dir / env / f"repro__{stem}.json").read_text())
    assert record["status"] == "ok", (env, record["error"], record["stderr_tail"][-1500:])
    return [cp["label"] for cp in record["checkpoints"]]


def test_torch_snippet(cpu_image, tmp_path: Path) -> None:
    cpu_image("torch")
    result, run_dir = _repro("torch_del_empty_cache.py", ["torch"], tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert _labels(run_dir, "torch", "torch_del_empty_cache") == [
        "start",
        "torch_del_empty_cache.py:4: import torch",  # the host-memory floor: the framework is loaded
        *(f"torch_del_empty_cache.py:10: for step in range(3):#{n}" for n in (1, 2, 3)),  # a loop with no cleanup line
        "torch_del_empty_cache.py:16: del model, optimizer",
        "torch_del_empty_cache.py:17: gc.collect()",
        "torch_del_empty_cache.py:18: torch.cuda.empty_cache()",
        "torch_del_empty_cache.py:19: del x, loss",
        "torch_del_empty_cache.py:20: torch.cuda.empty_cache()",
        "end",
    ]
    block = (run_dir / "repro.md").read_text()
    assert block == result.stdout[-len(block):]  # the Markdown block is what the command printed last
    assert "**torch**: torch 2.13.0" in block and "| `torch_del_empty_cache.py:19: del x, loss` |" in block
    assert (run_dir / "report.html").is_file()


def test_a_report_that_builds_tensors_with_numpy_runs_in_the_torch_image(cpu_image, tmp_path: Path) -> None:
    """torch.from_numpy needs numpy: the torch images carry it, so such a report is measured, not unsupported."""
    cpu_image("torch")
    result, run_dir = _repro("torch_from_numpy.py", ["torch"], tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "torch_from_numpy.py:9: del x, y" in _labels(run_dir, "torch", "torch_from_numpy")


@pytest.mark.parametrize("env", ["tf1.8", "tf2.7", "tf-current"])
def test_tf1_session_snippet(env: str, cpu_image, tmp_path: Path) -> None:
    cpu_image(env)
    result, run_dir = _repro("tf1_session.py", [env], tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert _labels(run_dir, env, "tf1_session") == [
        "start",
        "tf1_session.py:3: import tensorflow as tf",
        "tf1_session.py:12: end of: with tf.Session() as sess:",
        "tf1_session.py:17: sess.close()",
        "tf1_session.py:18: tf.reset_default_graph()",
        "end",
    ]


def test_tf2_keras_loop_snippet(cpu_image, tmp_path: Path) -> None:
    cpu_image("tf-current")
    cpu_image("tf2.7")
    result, run_dir = _repro("tf2_keras_loop.py", ["tf2.7", "tf-current"], tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    per_trial = ["tf2_keras_loop.py:12: del model", "tf2_keras_loop.py:13: tf.keras.backend.clear_session()",
                 "tf2_keras_loop.py:14: gc.collect()"]
    trials = [f"{label}#{n}" for n in (1, 2) for label in per_trial]  # inside the loop: numbered per iteration
    for env in ("tf2.7", "tf-current"):
        assert _labels(run_dir, env, "tf2_keras_loop") == ["start", "tf2_keras_loop.py:5: import tensorflow as tf",
                                                           *trials, "end"]
        record = json.loads((run_dir / env / "repro__tf2_keras_loop.json").read_text())
        # host memory is judged over the import: TensorFlow's own ~hundreds of MiB are the floor, not held
        assert record["verdicts"]["floor"] == "tf2_keras_loop.py:5: import tensorflow as tf"
        readings = {cp["label"]: cp["readings"]["rss"] for cp in record["checkpoints"]}
        imported = readings["tf2_keras_loop.py:5: import tensorflow as tf"] - readings["start"]
        assert record["verdicts"]["steps"][-1]["left"] < imported / 2, (imported, record["verdicts"]["steps"][-1])
        last = record["verdicts"]["steps"][-1]
        assert "driver" not in last["detail"] and (last["verdict"] == "no-signal" or "back to the OS" in last["detail"])
        assert record["loops"] == {label: 2 for label in per_trial}
    assert ("`tf2_keras_loop.py:12: del model`, `tf2_keras_loop.py:13: tf.keras.backend.clear_session()` and "
            "`tf2_keras_loop.py:14: gc.collect()` (one loop) ran 2 times") in (run_dir / "repro.md").read_text()


def test_a_script_that_fails_in_an_env_is_a_result(cpu_image, tmp_path: Path) -> None:
    cpu_image("tf1.8")
    result, run_dir = _repro("tf2_keras_loop.py", ["tf1.8"], tmp_path)  # TF 1.8 has no tf.keras.Input
    assert result.returncode == 0, result.stderr[-3000:]
    record = json.loads((run_dir / "tf1.8" / "repro__tf2_keras_loop.json").read_text())
    assert record["status"] in ("unsupported", "error")
    assert "Traceback" in record["error"]["traceback"] and "tf2_keras_loop.py" in record["error"]["traceback"]
    assert "Status: **" in (run_dir / "repro.md").read_text()


def test_a_script_only_its_owner_can_read_runs_in_the_container(cpu_image, tmp_path: Path) -> None:
    """A `mktemp -d` folder (mode 0700) with a 0600 script: the container's user (65534) could not
    read it, and the PermissionError passed for the script's own failure."""
    cpu_image("torch")
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    script = private / "bug.py"
    script.write_text((SNIPPETS / "torch_del_empty_cache.py").read_text())
    script.chmod(0o600)
    result, run_dir = _repro(script, ["torch"], tmp_path / "results")
    assert result.returncode == 0, result.stderr[-3000:]
    labels = _labels(run_dir, "torch", "bug")
    assert labels[0] == "start" and "bug.py:16: del model, optimizer" in labels


def test_a_script_reaching_torch_only_through_its_own_module_runs_in_the_torch_environment(
        cpu_image, tmp_path: Path) -> None:
    """`from model import Net` where model.py imports torch: refused before; now the torch
    environment applies, and the module travels with the script even from a private folder."""
    cpu_image("torch")
    project = tmp_path / "project"
    (project / "nets").mkdir(parents=True, mode=0o700)
    project.chmod(0o700)
    (project / "nets" / "__init__.py").write_text("")
    (project / "nets" / "model.py").write_text("import torch\n\n\ndef make():\n    return torch.ones(1 << 20)\n")
    script = project / "train.py"
    script.write_text("from nets.model import make\n\nx = make()\ndel x\nprint('done')\n")
    result, run_dir = _repro(script, [], tmp_path / "results")
    assert result.returncode == 0, result.stderr[-3000:]
    record = json.loads((run_dir / "torch" / "repro__train.json").read_text())
    assert record["status"] == "ok", (record["error"], record["stderr_tail"][-1500:])
    assert "torch" in record["facts"]["frameworks"]  # what it really imported, reported from inside
    assert [cp["label"] for cp in record["checkpoints"]] == ["start", "train.py:4: del x", "end"]
    assert {p.name for p in run_dir.iterdir() if p.is_dir()} >= {"torch"}


def test_torchrun_ddp_on_two_cpu_ranks(cpu_image, tmp_path: Path) -> None:
    """`repro -- torchrun --nproc_per_node=2 ddp_gloo.py --epochs 2` in the torch image: the launcher
    runs as typed, its rendezvous finds the container's own name, and each rank's checkpoints are its own."""
    cpu_image("torch")
    argv = [sys.executable, "-m", "harness", "repro", "--env", "torch", "--results", str(tmp_path), "--timeout", "300",
            "--", "torchrun", "--nproc_per_node=2", str(SNIPPETS / "launch" / "ddp_gloo.py"), "--epochs", "2"]
    result = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=900, env=dict(os.environ, NO_COLOR="1"))
    assert result.returncode == 0, result.stderr[-3000:]
    (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    record = json.loads((run_dir / "torch" / "repro__ddp_gloo.json").read_text())
    assert record["status"] == "ok", (record["error"], record["stderr_tail"][-1500:])
    log = (run_dir / "logs" / "torch" / "repro__ddp_gloo.log").read_text()
    assert sorted(line for line in log.splitlines() if line.startswith("rank ")) == [
        "rank 0 of 2 ran 2 epochs", "rank 1 of 2 ran 2 epochs"]
    for rank in (0, 1):
        assert f"rank {rank}: ddp_gloo.py:20: del model, opt" in [cp["label"] for cp in record["checkpoints"]]
    assert record["facts"]["frameworks"].get("torch", "").startswith("2.")  # what the ranks ran, not the launcher
    assert "Run as `torchrun --nproc_per_node=2" in (run_dir / "repro.md").read_text()


def test_ranks_that_fail_at_argument_parsing_are_said_by_their_own_error(cpu_image, tmp_path: Path) -> None:
    """A usage error in every rank: the status names what argparse said, rank-labelled (not the exit
    code alone, nor the pipe the launcher's teardown broke)."""
    cpu_image("torch")
    argv = [sys.executable, "-m", "harness", "repro", "--env", "torch", "--results", str(tmp_path), "--timeout", "300",
            "--", "torchrun", "--nproc_per_node=2", str(SNIPPETS / "launch" / "ddp_gloo.py"), "--lr", "1e-3"]
    result = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=900, env=dict(os.environ, NO_COLOR="1"))
    (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    record = json.loads((run_dir / "torch" / "repro__ddp_gloo.json").read_text())
    assert record["status"] == "error", record["status"]
    assert re.fullmatch(r"ddp_gloo.py: error: unrecognized arguments: --lr 1e-3 \(exit code 2\) \(rank [01]; the "
                        r"launcher exited with 1\)", record["error"]["message"]), record["error"]
    assert "Status: **error**: `SystemExit: ddp_gloo.py: error: unrecognized arguments" in (run_dir / "repro.md").read_text()
    assert "BrokenPipe" not in result.stdout + result.stderr


def test_mp_spawn_ranks_take_their_own_checkpoints(cpu_image, tmp_path: Path) -> None:
    """`torch.multiprocessing.spawn` in the torch image: each rank runs the script's function with its
    checkpoints, labelled `rank N: ...` by the index spawn gave it, and is judged on its own process."""
    cpu_image("torch")
    argv = [sys.executable, "-m", "harness", "repro", str(SNIPPETS / "torch_spawn_ranks.py"), "--env", "torch",
            "--results", str(tmp_path), "--timeout", "300"]
    result = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=900, env=dict(os.environ, NO_COLOR="1"))
    assert result.returncode == 0, result.stderr[-3000:]
    (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    record = json.loads((run_dir / "torch" / "repro__torch_spawn_ranks.json").read_text())
    labels = [cp["label"] for cp in record["checkpoints"]]
    for rank in (0, 1):
        assert f"rank {rank}: start" in labels and f"rank {rank}: torch_spawn_ranks.py:9: del x#1" in labels, labels
    steps = {s["label"]: s for s in record["verdicts"]["steps"]}
    assert steps["rank 0: torch_spawn_ranks.py:9: del x#1"].get("judged_alone"), steps
    log = (run_dir / "logs" / "torch" / "repro__torch_spawn_ranks.log").read_text()
    assert sorted(line for line in log.splitlines() if line.startswith("rank ")) == ["rank 0 of 2: 2.0", "rank 1 of 2: 2.0"]
    text = (run_dir / "repro.md").read_text()
    assert "`rank 1: torch_spawn_ranks.py:9: del x#1`" in text and "add up the script and all its processes" in text
