"""A release asked for with --with on a GPU host is read before it is built: one with no code the
host's GPUs run is not built, its cells skipped with the cause; one that runs by JIT or in part is
built and said so. The wheels are real wheels that pip downloads from a wheelhouse, their libraries
the nvcc builds of tests/data/cuda (run on an H100: matrix/reference/h100-580.159.04-cuda-code)."""
from __future__ import annotations

import sys
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest

from harness.definitions.config import EnvDef, VariantDef
from harness.environments import gpu_fit
from harness.environments.images import BuildOptions
from harness.environments.prepare import prepare
from harness.measurement.nvml import GpuFacts, Nvml

DATA = Path(__file__).resolve().parents[1] / "data" / "cuda"
PYTHON = f"{sys.version_info[0]}.{sys.version_info[1]}"
TAG = f"cp{sys.version_info[0]}{sys.version_info[1]}"
H100 = GpuFacts(index=0, name="NVIDIA H100 80GB HBM3", uuid="GPU-0", total_bytes=80 << 30, mig_mode=False,
                compute_capability=(9, 0))


def _wheel(house: Path, version: str, library: str) -> Path:
    """torch VERSION as pip reads a wheel: its metadata, and the library as torch/lib/libtorch_cuda.so."""
    house.mkdir(exist_ok=True)
    path = house / f"torch-{version}-{TAG}-{TAG}-manylinux_2_28_x86_64.whl"
    info = f"torch-{version}.dist-info"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.write(DATA / library, "torch/lib/libtorch_cuda.so")
        archive.writestr("torch/__init__.py", "")
        archive.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: torch\nVersion: {version}\n")
        archive.writestr(f"{info}/WHEEL", f"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: false\nTag: {TAG}-{TAG}-"
                                          "manylinux_2_28_x86_64\n")
        archive.writestr(f"{info}/RECORD", "")
    return path


def _env(version: str) -> EnvDef:
    pin = f"torch=={version}"
    return EnvDef(name=pin, family=("torch",), dockerfile="images/adhoc", python_version=PYTHON, default=False, pin=pin,
                  variants={"gpu": VariantDef(base="nvidia/cuda:12.8.1-runtime-ubuntu24.04", packages=(pin, "numpy"))})


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def test_a_release_with_nothing_for_the_gpu_is_said_and_read_once(tmp_path: Path) -> None:
    house = tmp_path / "wheels"
    _wheel(house, "1.13.1", "kernel_sm86")
    build = BuildOptions(wheelhouse=house, offline=True)
    cannot, said = gpu_fit.judge(_env("1.13.1"), "gpu", [H100], build)
    assert cannot == ("libtorch_cuda.so has no sm_90 code and no PTX the driver could compile for it "
                      "(machine code sm_86; PTX none): cannot run on NVIDIA H100 80GB HBM3; it runs on Ampere/Ada GPUs "
                      "up to sm_86") and said == []
    for wheel in house.iterdir():
        wheel.unlink()  # asked again: answered from what was read, nothing fetched
    assert gpu_fit.judge(_env("1.13.1"), "gpu", [H100], build)[0] == cannot
    a100 = GpuFacts(index=1, name="NVIDIA A100-SXM4-80GB", uuid="GPU-1", total_bytes=80 << 30, mig_mode=False,
                    compute_capability=(8, 6))
    assert gpu_fit.judge(_env("1.13.1"), "gpu", [a100], build) == (None, [])  # sm_86 code runs on an sm_86 GPU


def test_a_release_that_runs_by_jit_is_built_and_said_so(tmp_path: Path) -> None:
    house = tmp_path / "wheels"
    _wheel(house, "2.0.1", "kernel_ptx75")
    cannot, said = gpu_fit.judge(_env("2.0.1"), "gpu", [H100], BuildOptions(wheelhouse=house, offline=True))
    assert cannot is None and said == ["torch==2.0.1 runs on NVIDIA H100 80GB HBM3 by JIT-compiling PTX "
                                       "(compute_75 and up) in libtorch_cuda.so: the first start pays the compile, the JIT "
                                       "cache keeps it"]


def test_a_wheel_that_cannot_be_fetched_is_said_and_built_as_before(tmp_path: Path) -> None:
    cannot, said = gpu_fit.judge(_env("1.4.0"), "gpu", [H100], BuildOptions(wheelhouse=tmp_path, offline=True))
    assert cannot is None and len(said) == 1 and said[0].startswith("torch==1.4.0: its wheel could not be read before building (")


def test_the_cpu_variant_and_pinned_environments_are_not_read(tmp_path: Path) -> None:
    assert gpu_fit.judge(_env("1.13.1"), "cpu", [H100], BuildOptions()) == (None, [])
    pinned = EnvDef(name="torch", family=("torch",), dockerfile="images/torch",
                    variants={"gpu": VariantDef(base="b", packages=("torch==2.13.0",))})
    assert gpu_fit.judge(pinned, "gpu", [H100], BuildOptions()) == (None, [])


def test_prepare_skips_such_a_release_before_building_it(tmp_path: Path) -> None:
    """On a GPU host (an Nvml that answered, as on an H100), the environment is skipped with the
    cause before any virtualenv or image is made."""
    house = tmp_path / "wheels"
    _wheel(house, "1.13.1", "kernel_sm86")
    events: list[tuple[str, dict]] = []
    nvml = Nvml(available=True, driver="580.159.04", gpus=[H100])
    prepared = prepare([_env("1.13.1")], "gpu", "venv", None, BuildOptions(wheelhouse=house, offline=True),
                       tmp_path / "venvs", nvml, lambda kind, data: events.append((kind, dict(data))))
    assert "cannot run on NVIDIA H100 80GB HBM3" in prepared.skipped["torch==1.13.1"]
    assert not prepared.backends and not (tmp_path / "venvs").exists()
    assert ("skipped", {"env": "torch==1.13.1", "reason": prepared.skipped["torch==1.13.1"]}) in events


def test_a_release_is_read_from_the_wheel_of_any_python_it_has(tmp_path: Path) -> None:
    """Its Python for an image (3.8 for torch 1.5.1) may be missing from a wheelhouse that holds its
    wheel for another (the 3.7 a virtualenv here uses): the GPU code is the same, read from that one."""
    house = tmp_path / "wheels"
    _wheel(house, "2.0.1", "kernel_ptx75")
    env = replace(_env("2.0.1"), python_version="3.99", other_pythons=("3.98", PYTHON))
    cannot, said = gpu_fit.judge(env, "gpu", [H100], BuildOptions(wheelhouse=house, offline=True))
    assert cannot is None and said[0].startswith("torch==2.0.1 runs on NVIDIA H100 80GB HBM3 by JIT-compiling PTX")


def test_a_jax_cuda_extra_is_read_from_its_plugin_not_from_the_cpu_jaxlib(tmp_path: Path) -> None:
    """jax[cuda12]==V keeps its GPU code in jax-cuda12-pjrt (jaxlib is the CPU build): reading jaxlib
    said "a CPU build ... cannot use NVIDIA H200" of releases that then ran on it (0.4.31, 0.4.33)."""
    house = tmp_path / "wheels"
    house.mkdir()
    path = house / "jax_cuda12_pjrt-0.4.31-py3-none-manylinux2014_x86_64.whl"
    info = "jax_cuda12_pjrt-0.4.31.dist-info"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.write(DATA / "kernel_ptx75", "jax_plugins/xla_cuda12/xla_cuda_plugin.so")
        archive.writestr(f"{info}/METADATA", "Metadata-Version: 2.1\nName: jax-cuda12-pjrt\nVersion: 0.4.31\n")
        archive.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: false\n"
                                          "Tag: py3-none-manylinux2014_x86_64\n")
        archive.writestr(f"{info}/RECORD", "")
    env = EnvDef(name="jax[cuda12]==0.4.31", family=("jax",), dockerfile="images/adhoc", python_version=PYTHON,
                 default=False, pin="jax[cuda12]==0.4.31",
                 variants={"gpu": VariantDef(base="b", packages=("jax[cuda12]==0.4.31", "jaxlib==0.4.31"))})
    assert gpu_fit.framework_pin(env, "gpu") == "jax-cuda12-pjrt==0.4.31"
    cannot, said = gpu_fit.judge(env, "gpu", [H100], BuildOptions(wheelhouse=house, offline=True))
    assert cannot is None and said[0].startswith("jax-cuda12-pjrt==0.4.31 runs on NVIDIA H100 80GB HBM3 by JIT")
