"""The product's own GPU path, re-judged from its committed records (H100, gpu images built from
the Dockerfiles, cells in containers with GPU access through CDI): matrix/reference/h100-580.159.04-docker-gpu."""
from __future__ import annotations

from pathlib import Path

import pytest

from harness.definitions import config
from harness.judgement import verdicts
from harness.judgement.gpu_use import framework_without_gpu
from harness.store.results import load_record

REFERENCE = Path(__file__).resolve().parents[2] / "matrix" / "reference"
DOCKER = REFERENCE / "h100-580.159.04-docker-gpu"


def _records(folder: Path) -> dict[str, dict]:
    records = (load_record(p) for p in sorted(folder.glob("*.json.gz")))
    return {r["scenario"]["name"]: r for r in records}


@pytest.fixture(scope="module")
def torch_cells() -> dict[str, dict]:
    return _records(DOCKER / "torch" / "torch")


@pytest.fixture(scope="module")
def tf_cells() -> dict[str, dict]:
    return _records(DOCKER / "tf-current" / "tf-current")


@pytest.fixture(scope="module")
def tf_cells_without_ldconfig() -> dict[str, dict]:
    return _records(DOCKER / "tf-current-no-ldconfig" / "tf-current")


def test_cells_ran_in_images_built_from_the_committed_dockerfiles(torch_cells: dict, tf_cells: dict) -> None:
    envs = config.load_environments()
    for name, cells in (("torch", torch_cells), ("tf-current", tf_cells)):
        assert len(cells) == len([p for p in (DOCKER / name).glob("*/*.json.gz") if p.parent.name != "logs"])
        for record in cells.values():
            labels = record["env"]["image_labels"]
            assert record["env"]["gpu_mode"] == "cdi" and record["env"]["image"] == f"{config.IMAGE_PREFIX}/{name}:gpu"
            assert labels["harness.base"] == envs[name].variant("gpu").base  # a stand-in, recorded by name and id
            assert labels["harness.base-id"].startswith("sha256:")
            assert all(cp["readings"]["nvml_process"] is not None for cp in record["checkpoints"])
    # each image is the definition its README names (the pins and Dockerfiles of 2026-11-23; the
    # shared install.sh has changed since: its import check now accepts TF 1.x without a driver)
    readme = (DOCKER / "README.md").read_text()
    for name, cells in (("torch", torch_cells), ("tf-current", tf_cells)):
        (built,) = {r["env"]["image_labels"]["harness.definition-hash"] for r in cells.values()}
        assert f"{name} `{built}`" in readme


def _same_verdicts(container: dict[str, dict], host: dict[str, dict], slack: int) -> int:
    """Every cleanup step of every cell: the same verdict, what is left within `slack` bytes."""
    steps = 0
    for name, record in container.items():
        assert record["status"] == "ok"
        mine, theirs = verdicts.judge(record), verdicts.judge(host[name])
        assert mine["status"] == "ok", name
        assert [s["verdict"] for s in mine["steps"]] == [s["verdict"] for s in theirs["steps"]], name
        for a, b in zip(mine["steps"], theirs["steps"], strict=True):
            assert abs((a["left"] or 0) - (b["left"] or 0)) <= slack, (name, a["label"])
        steps += len(mine["steps"])
    return steps


def test_torch_in_containers_agrees_with_the_host_process_step_by_step(torch_cells: dict) -> None:
    """torch 2.15 (CUDA 13.2 wheels) in containers against torch 2.11 (CUDA 13.0) on the same H100's host
    Python: different releases, the same verdict at every cleanup step."""
    host = {name: r for name, r in _records(REFERENCE / "h100-580.159.04" / "host-python3").items() if name.startswith("torch/")}
    assert set(host) == set(torch_cells) and len(host) == 10
    versions = {r["facts"]["frameworks"].get("torch") for r in torch_cells.values()}
    assert versions <= {"2.15.0+cu132", None} and "2.15.0+cu132" in versions  # None: the parent of a child_process cell
    assert _same_verdicts(torch_cells, host, slack=64 * 2**20) == 20


def test_tensorflow_in_containers_agrees_with_the_host_process_step_by_step(tf_cells: dict) -> None:
    """TF 2.21.0 in its gpu image (CUDA 12.9 wheels, registered with ldconfig) against TF 2.21.0 on the
    same H100's host Python (CUDA 12.5 wheels on LD_LIBRARY_PATH): the same verdict at all 37 cleanup
    steps, and what is left within one NVML granule (2 MiB)."""
    host = _records(REFERENCE / "h100-580.159.04-tf" / "host-tf-2.21.0")
    assert set(host) == set(tf_cells) and len(tf_cells) == 22
    versions = {r["facts"]["frameworks"].get("tensorflow") for r in tf_cells.values()} - {None}
    assert versions == {"2.21.0"}
    assert all(r["facts"].get("gpu_devices", {}).get("tensorflow") for r in tf_cells.values()
               if r["facts"]["frameworks"].get("tensorflow"))
    assert _same_verdicts(tf_cells, host, slack=2 * 2**20) == 37


def test_a_tensorflow_that_found_no_gpu_is_never_judged_on_gpu_memory(tf_cells_without_ldconfig: dict) -> None:
    """The first tf-current image could not load its pip CUDA libraries (tensorflow#65842): TF ran on
    the CPU, and the GPU held only the 518 MiB context it made while looking. Every cell says so,
    instead of "held: the pool was mapped at the first touch"."""
    assert len(tf_cells_without_ldconfig) == 22
    for record in tf_cells_without_ldconfig.values():
        judged = verdicts.judge(record)
        assert record["status"] == "ok" and judged["status"] == "unsupported"
        assert "tensorflow registered no GPU device" in judged["unsupported_reason"]


def test_a_cell_without_a_gpu_never_misses_one() -> None:
    record = {"status": "ok", "env": {"gpu_request": "none"}, "facts": {"gpu_devices": {"torch": 0}},
              "checkpoints": [{"label": "ready", "readings": {"nvml_device": None}}]}
    assert framework_without_gpu(record) is None
    record["env"] = {"gpu_request": "all"}
    record["checkpoints"][0]["readings"]["nvml_device"] = 1 << 30
    assert "torch registered no GPU device" in (framework_without_gpu(record) or "")
    record["facts"]["gpu_devices"]["torch"] = 1
    assert framework_without_gpu(record) is None


H200 = REFERENCE / "h200-580.159.04-docker-gpu"
H200_GPUS = REFERENCE / "h200-580.159.04-docker-gpus"


def _by_env(folder: Path) -> dict[str, dict[str, dict]]:
    """A run's cells by environment (each in a folder of its name)."""
    return {env.name: _records(env) for env in sorted(folder.iterdir()) if env.is_dir() and env.name != "logs"}


def _agree(container: dict[str, dict], host: dict[str, dict], mode: str, base: str) -> int:
    """Container cells started in `mode` on `base`, GPU readings in each, the verdicts of their host
    cells at every step and what is left within 8 MiB; the steps compared."""
    assert set(container) == set(host) and len(container) >= 2
    for record in container.values():
        assert record["env"]["backend"] == "docker" and record["env"]["gpu_mode"] == mode
        assert record["env"]["image_labels"]["harness.base"] == base
        assert all(cp["readings"]["nvml_process"] is not None for cp in record["checkpoints"])
    return _same_verdicts(container, host, slack=8 << 20)


def test_cupy_and_jax_in_their_containers_agree_with_the_host_process() -> None:
    cupy, jax, host_jax = _by_env(H200 / "cupy"), _by_env(H200 / "jax")["jax"], _by_env(H200 / "jax-without-ptxas")["host-python"]
    base = "nvidia/cuda:13.0.0-base-ubuntu24.04"
    assert _agree(cupy["cupy"], cupy["host-python"], "cdi", base) and _agree(jax, host_jax, "cdi", base)


def test_gpus_through_docker_29_agrees_with_the_host_process_and_with_cdi() -> None:
    """Docker 29.7.2 with nvidia-cdi-hook and the toolkit's spec: the harness chose `gpus` by itself,
    and CuPy, JAX, torch and TF 2.7 (its CUDA 11 image on a stand-in base) answer as their host processes."""
    base13 = "nvidia/cuda:13.0.0-base-ubuntu24.04"
    for framework in ("cupy", "jax", "torch"):
        cells = _by_env(H200_GPUS / framework)
        assert _agree(cells[framework], cells["host-python"], "gpus", base13)
        if framework != "torch":  # and the cdi run's (torch ran through cdi on an H100, another release)
            assert _agree(cells[framework], _by_env(H200 / framework)[framework], "gpus", base13)
    tf27 = _by_env(H200_GPUS / "tf2.7")["tf2.7"]
    assert "Docker 29.7.2 turns --gpus into CDI devices" in next(iter(tf27.values()))["env"]["gpu_note"]
    host = _by_env(H200_GPUS / "host-tf-2.7.4")["host-tf-2.7.4"]
    assert _agree(tf27, host, "gpus", "nvidia/cuda:11.2.2-cudnn8-runtime-ubuntu20.04") >= 43
    seen = {(r["facts"]["frameworks"].get("tensorflow"), r["facts"].get("cuda")) for r in tf27.values()}
    assert ("2.7.4", "11.2") in seen and seen <= {("2.7.4", "11.2"), (None, None)}  # a parent that never imports TF
    eager = [r for name, r in tf27.items() if name.startswith("tf2/") and name != "tf2/child_process"]
    assert eager and all(r["facts"]["gpu_devices"]["tensorflow"] == 1 for r in eager)  # TF 2.7 registered the H200
    session = verdicts.judge(tf27["tf1/session_close"])["steps"]  # TF mapped the H200's memory in its container
    assert any(step["verdict"] == "held" and step["left"] > 100 << 30 for step in session)


def test_tensorflow_1_8_runs_on_hopper_in_its_container() -> None:
    """TF 1.8 (CUDA 9.0, PTX for compute_70) on an H200 through `gpus`: the driver JIT-compiled its
    PTX once (the first cell), the shared JIT cache served the other eight; the answers are those the
    issue's process run on an H200 gave (session_close 132.83 GiB held, allow_growth 2.00 GiB,
    memory_fraction 28.54 GiB, a child process releases)."""
    cells = _by_env(H200_GPUS / "tf1.8")["tf1.8"]
    assert len(cells) == 9 and {r["status"] for r in cells.values()} == {"ok"}
    assert all(r["env"]["gpu_mode"] == "gpus" and r["env"]["image_labels"]["harness.base"] == "tensorflow/tensorflow:1.8.0-gpu"
               for r in cells.values())
    left = {name: [(s["verdict"], round(s["left"] / 2**30, 2)) for s in verdicts.judge(r)["steps"]] for name, r in cells.items()}
    assert left["tf1/session_close"] == [("held", 132.83)]
    assert left["tf1/allow_growth"] == [("held", 2.0)]
    assert left["tf1/memory_fraction"] == [("held", 28.54)]
    assert left["tf1/child_process"] == [("released", 0.0)]
    first, rest = max(r["duration_s"] for r in cells.values()), sorted(r["duration_s"] for r in cells.values())[:-1]
    assert first > 120 and max(rest) < 30  # one PTX compile, then the cache


def test_tensorflow_1_8s_own_image_brings_its_hopper_cublas_and_agrees_with_the_host_process() -> None:
    """The committed tf1.8 gpu image (its hopper_cublas.sh step) on a stand-in for TF's image that
    holds CUDA 9.0's own cuBLAS: all nine cells ok on an H200 through `gpus`, and every cleanup step
    the verdict of the same image's files run as a host process (a chroot), what is left identical."""
    folder = REFERENCE / "h200-580.159.04-tf18-hopper"
    container = _records(folder / "tf1.8" / "tf1.8")
    host = _records(folder / "host-tf-1.8.0" / "host-tf-1.8.0")
    assert len(container) == len(host) == 9
    labels = {r["env"]["image_labels"]["harness.definition-hash"] for r in container.values()}
    assert labels == {config.load_environments()["tf1.8"].definition_hash("gpu")}  # the committed definition
    assert all(r["env"]["gpu_mode"] == "gpus" for r in container.values())
    assert "/opt/hopper-cublas/libcublas.so.9.0" in (folder / "image.txt").read_text()
    assert _same_verdicts(container, host, slack=0) == 12


def test_tf_current_through_gpus_on_an_h200_answers_as_the_cdi_run_and_the_host_process_on_an_h100(
        tf_cells: dict) -> None:
    """TF 2.21 in its gpu image through `--gpus all` (Docker 29.7.2): every cleanup step the verdict of
    the same image through `cdi` and of the host process on an H100; only the amounts follow the GPU."""
    gpus = _records(H200_GPUS / "tf-current" / "tf-current")
    host = _records(REFERENCE / "h100-580.159.04-tf" / "host-tf-2.21.0")
    assert len(gpus) == 26 and all(r["status"] == "ok" for r in gpus.values())
    assert {r["env"]["gpu_mode"] for r in gpus.values()} == {"gpus"}
    assert {r["facts"]["frameworks"].get("tensorflow") for r in gpus.values()} <= {"2.21.0", None}
    steps = 0
    for name, cdi in tf_cells.items():
        mine = [s["verdict"] for s in verdicts.judge(gpus[name])["steps"]]
        assert mine == [s["verdict"] for s in verdicts.judge(cdi)["steps"]], name
        assert mine == [s["verdict"] for s in verdicts.judge(host[name])["steps"]], name
        steps += len(mine)
    assert steps == 37
    held = verdicts.judge(gpus["tf1/session_close"])["steps"][0]
    assert held["verdict"] == "held" and held["left"] > 130 << 30  # the H200's memory, not the H100's 77 GiB
