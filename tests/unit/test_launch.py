"""`repro` with the script's arguments, or with the launcher's command: parsed into what runs, and
run for real (a launcher of two ranks through the process backend): each rank is the script as a
bare rank runs it, its checkpoints labelled with its rank, the launcher's exit code the cell's."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from helpers import ROOT, harness_cli

from harness.cli import split_command
from harness.common.errors import UsageError
from harness.running.launch import PYTHON, SCRIPT, Launch, parse

LAUNCH = ROOT / "tests" / "repro" / "launch"


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "train.py").write_text("print('hi')\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_script_and_its_arguments(here: Path) -> None:
    assert parse(Path("train.py"), ["--lr", "1e-3"]) == Launch(Path("train.py"), ("--lr", "1e-3"), (),
                                                               "python train.py --lr 1e-3")
    assert parse(None, ["python3", "-u", "train.py", "--lr", "1e-3"]).argv == ("--lr", "1e-3")
    assert parse(None, ["train.py", "x"]).argv == ("x",)


def test_a_launchers_command_keeps_every_argument_in_place(here: Path) -> None:
    started = parse(None, ["torchrun", "--nproc_per_node=2", "train.py", "--epochs", "1"])
    assert started.script == Path("train.py")
    assert started.launch == ("torchrun", "--nproc_per_node=2", SCRIPT, "--epochs", "1")
    assert started.command == "torchrun --nproc_per_node=2 train.py --epochs 1"
    accelerate = parse(None, ["accelerate", "launch", "--num_processes", "2", "train.py"])
    assert accelerate.launch == ("accelerate", "launch", "--num_processes", "2", SCRIPT)
    module = parse(None, ["python", "-m", "torch.distributed.run", "--nproc_per_node", "2", "train.py", "--x"])
    assert module.launch == (PYTHON, "-m", "torch.distributed.run", "--nproc_per_node", "2", SCRIPT, "--x")


@pytest.mark.parametrize(("rest", "said"), [
    ([], "repro needs the script"),
    (["torchrun", "--nproc_per_node=2", "missing.py"], "found no script"),
    (["python", "-m", "mypkg.train"], "a module run with -m (mypkg.train) is not instrumented yet"),
    (["python", "-c", "print(1)"], "the interpreter option -c is not passed on"),
    (["python", "nothere.py"], "script not found: nothere.py"),
])
def test_what_cannot_run_is_named_in_one_line(here: Path, rest: list[str], said: str) -> None:
    with pytest.raises(UsageError, match=said.replace("(", r"\(").replace(")", r"\)")):
        parse(None, rest)


def test_what_follows_the_double_dash_is_never_an_option_of_ours() -> None:
    assert split_command(["repro", "train.py", "--", "--lr", "1e-3", "--env", "x"]) == (
        ["repro", "train.py"], ["--lr", "1e-3", "--env", "x"])
    assert split_command(["repro", "--env", "torch", "--", "torchrun", "t.py"]) == (
        ["repro", "--env", "torch"], ["torchrun", "t.py"])
    assert split_command(["matrix", "--", "x"]) == (["matrix", "--", "x"], [])


def _record(results: Path) -> dict:
    (path,) = results.glob("*/*/repro__*.json")
    return json.loads(path.read_text())


def _log(results: Path) -> list[str]:
    (path,) = results.glob("*/logs/*/*.log")
    return sorted(line for line in path.read_text().splitlines() if line.startswith("rank "))


def _launcher(tmp_path: Path) -> Path:
    launcher = tmp_path / "fakerun"  # an executable on the command line, as torchrun is
    launcher.write_text(f"#!{sys.executable}\n" + (LAUNCH / "fakerun.py").read_text())
    launcher.chmod(0o755)
    return launcher


def test_each_rank_runs_the_script_as_bare_and_is_labelled(tmp_path: Path) -> None:
    import subprocess

    launcher, script = _launcher(tmp_path), LAUNCH / "ranks.py"
    bare = subprocess.run([str(launcher), "2", str(script), "--lr", "3"], capture_output=True, text=True, timeout=60)
    result = harness_cli("repro", "--interpreter", sys.executable, "--results", str(tmp_path / "r"), "--",
                         str(launcher), "2", str(script), "--lr", "3", cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    said = _log(tmp_path / "r")
    assert said == sorted(line for line in bare.stdout.splitlines() if line.startswith("rank "))
    assert said == ["rank 0 argv ['--lr', '3'] main __main__ channel None",
                    "rank 1 argv ['--lr', '3'] main __main__ channel None"]
    record = _record(tmp_path / "r")
    labels = [cp["label"] for cp in record["checkpoints"]]
    assert labels[0] == "launch" and labels[-1] == "end"
    for rank in (0, 1):
        mine = [cp for cp in record["checkpoints"] if cp.get("rank") == rank]
        assert [cp["label"] for cp in mine] == [f"rank {rank}: start", f"rank {rank}: ranks.py:8: del held",
                                                f"rank {rank}: end"]
        assert len({cp["pid"] for cp in mine}) == 1
    assert record["scenario"]["command"].endswith("fakerun 2 " + str(script) + " --lr 3")
    assert "Run as `" in (next((tmp_path / "r").iterdir()) / "repro.md").read_text()


def test_a_failing_rank_is_named_and_the_launchers_exit_code_kept(tmp_path: Path) -> None:
    launcher = _launcher(tmp_path)
    result = harness_cli("repro", "--interpreter", sys.executable, "--results", str(tmp_path / "r"), "--",
                         str(launcher), "2", str(LAUNCH / "ranks.py"), "--fail", cwd=tmp_path)
    record = _record(tmp_path / "r")
    assert record["status"] == "error"
    assert record["error"]["type"] == "ValueError"
    assert "rank 1 fails on purpose (rank 1; the launcher exited with 1)" in record["error"]["message"]
    assert record["script_exit_code"] == 1
    assert "ValueError: rank 1 fails on purpose" in result.stdout + result.stderr


def test_a_scripts_arguments_reach_it(tmp_path: Path) -> None:
    result = harness_cli("repro", "--interpreter", sys.executable, "--results", str(tmp_path / "r"),
                         str(LAUNCH / "ranks.py"), "--", "--lr", "1e-3", "--env", "x", cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert _log(tmp_path / "r") == ["rank None argv ['--lr', '1e-3', '--env', 'x'] main __main__ channel None"]


def test_resume_runs_the_same_command_again(tmp_path: Path) -> None:
    """--resume reads the run's request back: the launcher and the script's arguments come with it."""
    from dataclasses import replace

    from harness.running import repro
    from harness.running.request import MatrixOptions
    from harness.running.resume import request_of, resume_options

    script = tmp_path / "train.py"
    script.write_text("import torch\n")
    item = replace(repro.script_scenario(script, 60.0), argv=("--lr", "3"), launch=("torchrun", SCRIPT, "--lr", "3"),
                   command="torchrun train.py --lr 3")
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "manifest.json").write_text(json.dumps({"request": request_of(MatrixOptions(items=[item]))}))
    (again,) = resume_options(run_dir, MatrixOptions()).items or []
    assert (again.argv, again.launch, again.command) == (item.argv, item.launch, item.command)


def test_a_usage_error_is_said_by_what_argparse_printed() -> None:
    import argparse

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "harness" / "agent"))
    import as_bare  # noqa: E402  (agent code, imported from its folder as inside an environment)

    parser = argparse.ArgumentParser(prog="train.py")
    parser.add_argument("--epochs", type=int)
    try:
        parser.parse_args(["--lr", "1e-3"])
    except SystemExit:
        said = as_bare.failure_message(sys.exc_info())
    assert said == "train.py: error: unrecognized arguments: --lr 1e-3 (exit code 2)"
    try:
        sys.exit(3)
    except SystemExit:
        assert as_bare.failure_message(sys.exc_info()) == "3"  # as str(SystemExit(3)) says it
    try:
        raise ValueError("boom")
    except ValueError:
        assert as_bare.failure_message(sys.exc_info()) == "boom"


def test_the_paste_block_names_no_folder_of_this_machine() -> None:
    from harness.reporting import repro_md

    assert repro_md.portable("python /home/me/work/train.py --data /srv/d --lr 1e-3") == "python train.py --data d --lr 1e-3"
    assert repro_md.portable("torchrun --nproc_per_node=2 /tmp/x/ddp.py") == "torchrun --nproc_per_node=2 ddp.py"
    assert repro_md._where({"backend": "venv", "packages": ["torch==2.4.1"], "interpreter": "/root/.venvs/t/bin/python"}) \
        == "a virtualenv of torch==2.4.1"
    assert repro_md._where({"backend": "venv", "packages": ["tensorflow==2.9.3"], "base": None,
                            "library_path": "/v/lib/python3.8/site-packages/nvidia/cublas/lib"}) == \
        "a virtualenv of tensorflow==2.9.3 with CUDA from NVIDIA's wheels on its library path"  # no base it did not use
    assert repro_md._where({"backend": "venv", "packages": ["cupy-cuda112==8.6.0"], "library_path": "/v/nvidia/cuda_nvrtc/lib",
                            "cuda_path": "/v/lib/python3.8/site-packages/nvidia/cuda_runtime"}) == \
        "a virtualenv of cupy-cuda112==8.6.0 with CUDA from NVIDIA's wheels on its library path (CUDA_PATH at their headers)"
    fetched = ["deb:pool/multiverse/n/nvidia-cuda-toolkit/libcudart10.1_10.1.243-3_amd64.deb",
               "wheel:cupy-cuda101==7.8.0:cupy/.data/lib/libcudnn.so.7"]
    assert repro_md._where({"backend": "venv", "packages": ["tensorflow==2.3.4"], "library_path": "/v/cuda-libs",
                            "cuda_libraries": fetched}) == \
        ("a virtualenv of tensorflow==2.3.4 with libcudart10.1 10.1.243-3 from Ubuntu's packages; libcudnn.so.7 from "
         "cupy-cuda101==7.8.0's wheel on its library path")
    assert repro_md._where({"backend": "venv", "packages": ["tensorflow==2.3.4"], "cuda_libraries": fetched,
                            "library_path": "/v/cuda-aliases:/v/cuda-libs:/v/lib/python3.7/site-packages/nvidia/cublas/lib",
                            "cuda_aliases": ["libcublas.so.10=libcublas.so.11"]}) == \
        ("a virtualenv of tensorflow==2.3.4 with CUDA from NVIDIA's wheels and libcudart10.1 10.1.243-3 from Ubuntu's "
         "packages; libcudnn.so.7 from cupy-cuda101==7.8.0's wheel on its library path (libcublas.so.10 as libcublas.so.11)")
    assert repro_md._where({"backend": "process", "interpreter": "/opt/torch/.venv/bin/python3"}) == "the interpreter python3"
    assert repro_md._where({"backend": "docker", "image": "gpu-cleanup-matrix/torch:gpu-1a2b", "packages": ["torch==2.15.0"],
                            "base": "nvidia/cuda:13.0.0-base-ubuntu24.04"}) == \
        "image gpu-cleanup-matrix/torch:gpu-1a2b (torch==2.15.0 on nvidia/cuda:13.0.0-base-ubuntu24.04)"
