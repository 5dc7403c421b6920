"""CDI specs written for a host's driver, and the GPU mode doctor reports, on recorded host outputs."""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from harness.common.errors import UsageError
from harness.environments import cdi
from harness.environments.doctor import gpu_mode_check
from harness.measurement import gpu_access

DATA = Path(__file__).resolve().parents[1] / "data"
LISTING = (DATA / "ldconfig-h200-driver580.txt").read_text()


@pytest.fixture
def host(tmp_path: Path) -> dict:
    """Device nodes of a two-GPU host and the driver's nvidia-smi, as files in a temporary tree."""
    dev, tools = tmp_path / "dev", tmp_path / "bin"
    dev.mkdir()
    tools.mkdir()
    for node in ("nvidia0", "nvidia1", "nvidiactl", "nvidia-uvm", "nvidia-uvm-tools"):
        (dev / node).write_text("")
    (tools / "nvidia-smi").write_text("#!/bin/sh\n")
    (tools / "nvidia-smi").chmod(0o755)
    return {"dev": str(dev), "ldconfig_output": LISTING, "tool_dirs": (str(tools),)}


def test_spec_from_the_recorded_h200_driver(host: dict) -> None:
    spec = cdi.host_spec(**host)
    assert spec["kind"] == "nvidia.com/gpu" and spec["cdiVersion"] == cdi.CDI_VERSION
    devices = {d["name"]: [n["path"] for n in d["containerEdits"]["deviceNodes"]] for d in spec["devices"]}
    assert devices["0"] == [host["dev"] + "/nvidia0"] and devices["1"] == [host["dev"] + "/nvidia1"]
    assert devices["all"] == [host["dev"] + "/nvidia0", host["dev"] + "/nvidia1"]
    control = [n["path"] for n in spec["containerEdits"]["deviceNodes"]]
    assert sorted(Path(p).name for p in control) == ["nvidia-uvm", "nvidia-uvm-tools", "nvidiactl"]
    mounts = {m["containerPath"]: m for m in spec["containerEdits"]["mounts"]}
    # the driver as the linker cache lists it first (/usr/local/nvidia/lib64, not the duplicate in /lib)
    assert mounts["/usr/lib/x86_64-linux-gnu/libcuda.so.1"]["hostPath"] == "/usr/local/nvidia/lib64/libcuda.so.1"
    for name in ("libnvidia-ml.so.1", "libnvidia-ptxjitcompiler.so.1", "libnvidia-gpucomp.so.580.159.04"):
        assert f"/usr/lib/x86_64-linux-gnu/{name}" in mounts
    assert mounts["/usr/bin/nvidia-smi"]["options"] == ["ro", "nosuid", "nodev", "bind"]
    assert not any("libcudart" in path for path in mounts)  # the CUDA runtime belongs to the image, not the driver
    assert "env" not in spec["containerEdits"]  # nothing of the image's environment is overridden


def test_no_driver_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no NVIDIA GPU device nodes or no libcuda"):
        cdi.host_spec(dev=str(tmp_path), ldconfig_output="", search=[str(tmp_path)])


def test_written_spec_is_what_cdi_mode_finds(host: dict, tmp_path: Path) -> None:
    folder = tmp_path / "cdi"
    path = cdi.write_spec(cdi.host_spec(**host), folder)
    assert json.loads(path.read_text())["kind"] == "nvidia.com/gpu"
    info = json.loads((DATA / "docker_info" / "docker-20.10-debian-runc.json").read_text())
    info["CDISpecDirs"] = [str(folder)]
    assert gpu_access.choose(info, True, cdi_dirs=(str(folder),)).mode == "cdi"


def test_an_existing_nvidia_spec_is_not_shadowed(host: dict, tmp_path: Path) -> None:
    folder = tmp_path / "cdi"
    folder.mkdir()
    (folder / "nvidia.yaml").write_text("cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices: []\n")
    with pytest.raises(UsageError, match="already describes nvidia.com/gpu"):
        cdi.write_spec(cdi.host_spec(**host), folder)
    assert cdi.write_spec(cdi.host_spec(**host), folder, force=True).name == "nvidia.json"


def _driver_host(tmp_path: Path) -> dict:
    dev, lib = tmp_path / "dev", tmp_path / "lib"
    dev.mkdir()
    lib.mkdir()
    for node in ("nvidia0", "nvidiactl"):
        (dev / node).write_text("")
    (lib / "libcuda.so.1").write_text("")
    return {"dev": str(dev), "ldconfig_output": "", "search": [str(lib)], "cdi_dirs": (str(tmp_path / "cdi"),),
            "cdi_hook": ""}


def test_doctor_names_the_mode_and_the_step_to_a_better_one(tmp_path: Path) -> None:
    info = json.loads((DATA / "docker_info" / "docker-20.10-debian-runc.json").read_text())
    host = _driver_host(tmp_path)
    old = gpu_mode_check(info, True, **host)  # Docker 20.10, no toolkit: devices, and the toolkit is the way up
    assert "mode devices" in old.detail and "NVIDIA Container Toolkit" in old.fix
    info["ServerVersion"] = "26.1.5"  # CDI-capable, but off
    assert "features" in gpu_mode_check(info, True, **host).fix
    info["CDISpecDirs"] = ["/etc/cdi", "/var/run/cdi"]  # CDI on, no spec yet
    assert "harness cdi-spec" in gpu_mode_check(info, True, **host).fix
    (tmp_path / "cdi").mkdir()
    (tmp_path / "cdi" / "nvidia.json").write_text("{}")
    ready = gpu_mode_check(info, True, **host)
    assert ready.ok is True and "mode cdi" in ready.detail and not ready.fix
    info["Runtimes"]["nvidia"] = {"path": "nvidia-container-runtime"}
    assert "mode gpus" in gpu_mode_check(info, True, **host).detail


def test_recorded_docker_26_with_cdi_on(tmp_path: Path) -> None:
    """docker info from the H100 (Debian's docker.io 26.1.5, features.cdi on, no toolkit): cdi once a spec exists."""
    info = json.loads((DATA / "docker_info" / "docker-26.1-trixie-cdi-h100.json").read_text())
    host = _driver_host(tmp_path)
    assert "harness cdi-spec" in gpu_mode_check(info, True, **host).fix
    (tmp_path / "cdi").mkdir()
    (tmp_path / "cdi" / "nvidia.json").write_text("{}")
    assert gpu_mode_check(info, True, **host).detail.startswith("a run will use mode cdi")


def test_doctor_on_docker_29_without_the_hook_names_the_way_to_gpus(tmp_path: Path) -> None:
    info = json.loads((DATA / "docker_info" / "docker-29.7-bundle-v2-h200.json").read_text())
    host = _driver_host(tmp_path)
    (tmp_path / "cdi").mkdir()
    (tmp_path / "cdi" / "nvidia.yaml").write_text("kind: nvidia.com/gpu\n")
    check = gpu_mode_check(info, True, **host)  # a spec, no nvidia-cdi-hook: cdi works, gpus would not
    assert check.ok is True and check.detail.startswith("a run will use mode cdi") and "nvidia-cdi-hook" in check.fix
    chosen = gpu_mode_check(info, True, **{**host, "cdi_hook": "/usr/bin/nvidia-cdi-hook"})
    assert "mode gpus" in chosen.detail and not chosen.fix



def test_doctor_says_what_tf_1_8_needs_on_a_newer_gpu() -> None:
    from harness.definitions import config
    from harness.environments.doctor import old_cuda_notes
    from harness.measurement.nvml import GpuFacts

    envs = config.load_environments().values()
    h200 = GpuFacts(0, "NVIDIA H200", "GPU-1", 141 << 30, False, (9, 0))
    a100 = GpuFacts(1, "NVIDIA A100", "GPU-2", 80 << 30, False, (8, 0))
    v100 = GpuFacts(2, "Tesla V100", "GPU-3", 16 << 30, False, (7, 0))
    notes = {n.name: n.detail for n in old_cuda_notes(envs, [h200, a100, v100])}
    assert set(notes) == {"tf1.8 on GPU 0", "tf1.8 on GPU 1"}  # Volta has kernels; newer ones take the PTX JIT
    assert "compiles its PTX" in notes["tf1.8 on GPU 1"] and "cuBLAS" not in notes["tf1.8 on GPU 1"]
    assert "its image puts nvidia-cublas-cu11==11.11.3.6 in its place" in notes["tf1.8 on GPU 0"]
    bare = [replace(env, variants={"gpu": replace(env.variants["gpu"], stage_packages=())}) for env in envs
            if env.name == "tf1.8"]  # an environments file whose tf1.8 image does not bring one
    (note,) = old_cuda_notes(bare, [h200])
    assert "its base needs a cuBLAS with Hopper kernels as libcublas.so.9.0" in note.detail
