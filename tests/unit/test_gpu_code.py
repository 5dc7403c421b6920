"""Which GPUs a build can run on, from the code its libraries carry: the reader against cuobjdump,
and the judge's fit against what an H100 really did, on one kernel built by nvcc 13.0 six ways
(tests/data/cuda: the binaries, cuobjdump's listing of each and runs.tsv, each run on an H100 with a
fresh JIT cache; made by tools/lab/cuda_code_gpu.sh, matrix/reference/h100-580.159.04-cuda-code)."""
from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pytest

from harness.environments import cuda_code
from harness.judgement import gpu_code
from harness.model.gpu_code import BuildCode

DATA = Path(__file__).resolve().parents[1] / "data" / "cuda"
BUILDS = ("sm80", "sm86", "sm90", "ptx75", "ptx100", "sm80ptx80")


def _listed(name: str) -> tuple[list[int], list[int]]:
    """cuobjdump --list-elf --list-ptx, as it printed on the GPU host."""
    sass: set[int] = set()
    ptx: set[int] = set()
    for line in (DATA / f"kernel_{name}.cuobjdump").read_text().splitlines():
        if found := re.search(r"\.sm_(\d+)[a-z]?\.(cubin|ptx)", line):
            (sass if found.group(2) == "cubin" else ptx).add(int(found.group(1)))
    return sorted(sass), sorted(ptx)


def _ran_on_h100() -> dict[str, bool]:
    runs = [line.split("\t") for line in (DATA / "runs.tsv").read_text().splitlines()]
    return {name: code == "0" for name, run, code, *_ in runs if run == "cold"}


@pytest.mark.parametrize("name", BUILDS)
def test_the_reader_finds_what_cuobjdump_lists(name: str) -> None:
    lib = cuda_code.read_library(DATA / f"kernel_{name}")
    assert (sorted(lib.sass), sorted(lib.ptx)) == _listed(name)


@pytest.mark.parametrize("name", BUILDS)
def test_the_fit_says_what_the_h100_did(name: str) -> None:
    """Machine code for sm_80 or sm_86 and PTX for compute_100 did not run ("no kernel image is
    available"); sm_90 code and PTX for compute_75 or compute_80 did. The sm_80 build with its PTX is
    'partial': nvcc put a second fat binary beside it with sm_80 machine code only (whose kernels
    would fail if called), and the one with the kernel it ran was JIT-compiled from compute_80."""
    build = BuildCode((cuda_code.read_library(DATA / f"kernel_{name}"),))
    fit = gpu_code.fit(build, (9, 0), "an H100", f"kernel_{name}")
    assert fit.runs == _ran_on_h100()[name], fit.text
    assert fit.how == {"sm90": "sass", "ptx75": "ptx-jit", "sm80ptx80": "partial"}.get(name, "none")
    if name == "sm80ptx80":
        assert (fit.missing, fit.total, fit.jit_from) == (1, 2, 80) and "1 of the 2 fat binaries of kernel_sm80ptx80" in fit.text


def test_a_build_that_cannot_run_says_why_and_where_it_does() -> None:
    build = BuildCode((cuda_code.read_library(DATA / "kernel_sm86"),))
    fit = gpu_code.fit(build, (9, 0), "an H100", "torch 1.x (example)")
    assert fit.text == ("torch 1.x (example): kernel_sm86 has no sm_90 code and no PTX the driver could compile for it "
                        "(machine code sm_86; PTX none): cannot run on an H100; it runs on Ampere/Ada GPUs up to sm_86")
    assert gpu_code.fit(build, (8, 9), "an L40", "x").how == "sass"  # sm_86 code runs on a newer minor of its major
    assert gpu_code.fit(BuildCode((cuda_code.read_library(DATA / "kernel_sm90"),)), (8, 6), "an A10", "x").runs is False


def test_a_cpu_build_has_no_gpu_code() -> None:
    fit = gpu_code.fit(BuildCode(()), (9, 0), "an H100", "torch 2.13.0+cpu")
    assert (fit.runs, fit.how) == (False, "cpu-build") and "CPU build" in fit.text


def test_a_wheel_is_read_library_by_library(tmp_path: Path) -> None:
    wheel = tmp_path / "demo-1.0-py3-none-manylinux_2_28_x86_64.whl"
    with zipfile.ZipFile(wheel, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.write(DATA / "kernel_sm80ptx80", "demo/lib/libdemo_cuda.so")
        archive.write(DATA / "kernel_sm90", "demo/lib/libdemo_hopper.so.1")
        archive.writestr("demo/__init__.py", "")
        archive.writestr("demo/lib/libdemo_cpu.so", b"\x7fELF" + b"\0" * 4096)  # no GPU code: not listed
    build = cuda_code.read_wheels([wheel])
    assert [(lib.name, sorted(lib.sass), sorted(lib.ptx)) for lib in build.libraries] == [
        ("demo/lib/libdemo_cuda.so", [80], [80]), ("demo/lib/libdemo_hopper.so.1", [90], [])]
    fit = gpu_code.fit(build, (9, 0), "an H100", "demo 1.0")
    assert fit.how == "partial" and fit.jit_from == 80 and (fit.missing, fit.total) == (1, 2)  # the sm_90 one runs as built
    assert "1 of the 2 fat binaries of libdemo_cuda.so have no sm_90 code" in fit.text


def test_nvidias_libraries_are_named_where_they_have_nothing_for_the_gpu(tmp_path: Path) -> None:
    """The framework's own libraries decide (cuBLAS, cuDNN ... ship kernels per architecture and pick
    the GPU's at run time); one of NVIDIA's with no code at all for the GPU is named beside the answer."""
    wheel = tmp_path / "demo-2.0-py3-none-manylinux_2_28_x86_64.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.write(DATA / "kernel_sm90", "demo/lib/libdemo_cuda.so")
        archive.write(DATA / "kernel_sm86", "demo/lib/libcublas.so.11")
    fit = gpu_code.fit(cuda_code.read_wheels([wheel]), (9, 0), "an H100", "demo 2.0")
    assert (fit.runs, fit.how) == (True, "sass")
    assert fit.text.endswith("from its own sm_90 machine code; libcublas.so.11 has no sm_90 code either: calls into it fail")
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.write(DATA / "kernel_sm80", "demo/lib/libdemo_cuda.so")
        archive.write(DATA / "kernel_sm90", "nvidia/cublas/lib/libcublas.so.12")
    fit = gpu_code.fit(cuda_code.read_wheels([wheel]), (9, 0), "an H100", "demo 2.0")
    assert (fit.runs, fit.how) == (False, "none") and "demo 2.0: libdemo_cuda.so has no sm_90 code" in fit.text


def test_a_pattern_inside_a_payload_is_not_a_container() -> None:
    noise = cuda_code.MAGICS[0] + b"\x01\x00\x10\x00" + (10**6).to_bytes(8, "little") + b"\0" * 64
    assert cuda_code.architectures(noise) == (set(), set())  # its size runs past the data: passed over
