"""GPU access mode selection on docker info outputs recorded from real engines."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from harness.common.errors import UsageError
from harness.measurement import gpu_access

DATA = Path(__file__).resolve().parents[1] / "data" / "docker_info"


def _info(name: str) -> dict:
    return json.loads((DATA / name).read_text())


@pytest.fixture
def driver_host(tmp_path: Path) -> dict:
    """A host layout with NVIDIA device nodes and driver libraries (paths only)."""
    dev, lib = tmp_path / "dev", tmp_path / "lib"
    dev.mkdir()
    lib.mkdir()
    for node in ("nvidia0", "nvidia1", "nvidiactl", "nvidia-uvm"):
        (dev / node).write_text("")
    (lib / "libcuda.so.580.159.04").write_text("")
    (lib / "libcuda.so.1").symlink_to(lib / "libcuda.so.580.159.04")
    (lib / "libnvidia-ml.so.1").write_text("")
    return {"dev": str(dev), "search": [str(lib)], "ldconfig_output": "", "cdi_dirs": (str(tmp_path / "cdi"),),
            "cdi_hook": ""}


def test_plain_engine_without_driver_is_none() -> None:
    access = gpu_access.choose(_info("docker-20.10-debian-runc.json"), nvml_available=False)
    assert access.mode == "none" and "no NVIDIA driver" in access.reason


def test_plain_engine_with_driver_uses_device_nodes(driver_host: dict) -> None:
    access = gpu_access.choose(_info("docker-20.10-debian-runc.json"), True, **driver_host)
    assert access.mode == "devices"
    assert any(d.endswith("nvidia0") for d in access.devices) and any(d.endswith("nvidiactl") for d in access.devices)
    targets = {target for _, target in access.mounts}
    assert f"{gpu_access.DRIVER_MOUNT}/libcuda.so.1" in targets
    source = dict((t, s) for s, t in access.mounts)[f"{gpu_access.DRIVER_MOUNT}/libcuda.so.1"]
    assert source.endswith("libcuda.so.580.159.04")  # the real file, not the symlink
    assert access.environment["LD_LIBRARY_PATH"] == gpu_access.DRIVER_MOUNT


def test_registered_nvidia_runtime_means_gpus(driver_host: dict) -> None:
    info = _info("docker-20.10-debian-runc.json")
    info["Runtimes"]["nvidia"] = {"path": "nvidia-container-runtime"}
    access = gpu_access.choose(info, True, **driver_host)
    assert access.mode == "gpus" and "NVIDIA runtime" in access.reason


def test_cdi_needs_specs_and_an_engine_that_reads_them(driver_host: dict, tmp_path: Path) -> None:
    info = _info("docker-20.10-debian-runc.json")
    cdi = Path(driver_host["cdi_dirs"][0])
    cdi.mkdir()
    (cdi / "nvidia.yaml").write_text("cdiVersion: 0.5.0\n")
    assert gpu_access.choose(info, True, **driver_host).mode == "devices"  # docker 20.10 reads no CDI
    info["CDISpecDirs"] = ["/etc/cdi", "/var/run/cdi"]
    assert gpu_access.choose(info, True, **driver_host).mode == "cdi"


def test_driver_but_no_way_in_says_what_to_install(tmp_path: Path) -> None:
    access = gpu_access.choose(_info("docker-20.10-debian-runc.json"), True, dev=str(tmp_path), ldconfig_output="",
                               search=[str(tmp_path)], cdi_dirs=())
    assert access.mode == "none" and "NVIDIA Container Toolkit" in access.reason


def test_override_wins_and_unknown_mode_is_refused(driver_host: dict) -> None:
    info = _info("docker-20.10-debian-runc.json")
    assert gpu_access.choose(info, True, "none", **driver_host).mode == "none"
    assert gpu_access.choose(info, True, "gpus", **driver_host).mode == "gpus"
    with pytest.raises(UsageError, match="did you mean 'gpus'"):
        gpu_access.choose(info, True, "gpu", **driver_host)


def test_ldconfig_listing_finds_the_driver_libraries() -> None:
    listing = (
        "3 libs found in cache `/etc/ld.so.cache'\n"
        "\tlibnvidia-ml.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1\n"
        "\tlibcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1\n"
        "\tlibz.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libz.so.1\n"
    )
    assert gpu_access.driver_libraries(listing) == [
        "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1", "/usr/lib/x86_64-linux-gnu/libcuda.so.1"]


def test_recorded_gpu_host_listing_gives_each_library_once() -> None:
    """ldconfig -p from the H200 host (driver 580): every library is listed twice, in two folders."""
    listing = (DATA.parent / "ldconfig-h200-driver580.txt").read_text()
    libs = gpu_access.driver_libraries(listing)
    names = [Path(p).name for p in libs]
    assert len(names) == len(set(names))
    assert "/usr/local/nvidia/lib64/libcuda.so.1" in libs and "/lib/libcuda.so.1" not in libs
    assert {"libcuda.so.1", "libnvidia-ml.so.1", "libnvidia-ptxjitcompiler.so.1"} <= set(names)


def test_gpu_host_engine_without_toolkit_gets_devices(driver_host: dict) -> None:
    """docker info recorded on the H200 host (a bundled engine, no toolkit): devices mode."""
    info = _info("docker-20.10-bundle-h200-host.json")
    assert "nvidia" not in info["Runtimes"]
    listing = (DATA.parent / "ldconfig-h200-driver580.txt").read_text()
    access = gpu_access.choose(info, True, dev=driver_host["dev"], ldconfig_output=listing, cdi_dirs=())
    assert access.mode == "devices"
    assert ("/usr/local/nvidia/lib64/libcuda.so.1" in {os.path.dirname(s) + "/" + os.path.basename(t)
                                                        for s, t in access.mounts}
            or any(t.endswith("/libcuda.so.1") for _, t in access.mounts))


def _docker_29(info: dict, devices: list[str]) -> dict:
    """A 26.1 engine's recorded info as Docker >= 29.2 reports it: its version and the CDI devices it found."""
    return {**info, "ServerVersion": "29.7.2", "DiscoveredDevices": [{"Source": "cdi", "ID": d} for d in devices]}


def test_recorded_docker_29_with_nvidia_cdi_hook_takes_gpus_through_cdi(driver_host: dict) -> None:
    """docker info from the H200 (Docker 29.7.2 built from moby's tag, the toolkit's spec, no runtime)."""
    info = _info("docker-29.7-bundle-v2-h200.json")
    assert "nvidia" not in info["Runtimes"]  # no runtime registered: the old rule picked cdi here
    access = gpu_access.choose(info, True, **{**driver_host, "cdi_hook": "/tmp/dk/bin/nvidia-cdi-hook"})
    assert access.mode == "gpus"
    assert "Docker 29.7.2" in access.reason and "/tmp/dk/bin/nvidia-cdi-hook" in access.reason
    assert "nvidia.com/gpu=all" in access.reason
    assert gpu_access.choose(info, True, **driver_host).mode == "devices"  # no hook: --gpus would fail; no spec here


def test_gpus_through_cdi_needs_the_hook_the_version_and_a_device(driver_host: dict) -> None:
    recorded = _info("docker-26.1-trixie-cdi-h100.json")
    hook = {**driver_host, "cdi_hook": "/usr/bin/nvidia-cdi-hook"}
    cdi = Path(driver_host["cdi_dirs"][0])
    cdi.mkdir()
    (cdi / "nvidia.yaml").write_text("kind: nvidia.com/gpu\n")
    with_spec = _docker_29(recorded, [])
    assert gpu_access.choose(with_spec, True, **driver_host).mode == "cdi"  # no nvidia-cdi-hook: --gpus would fail
    assert gpu_access.choose(with_spec, True, **hook).mode == "gpus"  # a spec in a folder it reads will do
    older = {**with_spec, "ServerVersion": "29.1.5"}  # the hook lookup came in 29.2.0
    assert gpu_access.choose(older, True, **hook).mode == "cdi"
    (cdi / "nvidia.yaml").unlink()
    assert gpu_access.choose(_docker_29(recorded, []), True, **hook).mode == "devices"  # nothing to resolve


def test_a_refused_gpu_request_names_the_way_out() -> None:
    no_driver = 'could not select device driver "" with capabilities: [[gpu]]'
    assert "--gpu-mode cdi" in (gpu_access.refused_hint("gpus", no_driver) or "")
    unresolved = "failed to inject CDI devices: unresolvable CDI devices nvidia.com/gpu=all"
    assert "nvidia-ctk cdi generate" in (gpu_access.refused_hint("cdi", unresolved) or "")
    assert gpu_access.refused_hint("gpus", "no such image") is None
    assert gpu_access.refused_hint("none", no_driver) is None
