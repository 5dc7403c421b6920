"""Can a framework build run on this GPU, and how: said from the GPU code its libraries carry
(environments/cuda_code.py reads it) before anything is run, so a release too old for the GPU is a cell
that says why, never a crash or a hang.

Machine code (SASS) built for sm_XY runs on GPUs of the same major whose minor is at least Y
(sm_80 code runs on an sm_86 GPU, not on sm_90); PTX for compute_XY is compiled by the driver for
any GPU of XY or newer, once, when the library first loads a kernel (the JIT cache keeps it). Each
fat binary (a compilation unit's kernels) needs one or the other: a build where none has it cannot
run; one where some lack it runs, and the kernels of those fail if called (nvcc's builds carry a
second fat binary with machine code only: one built for sm_80 with its PTX ran on an H100).
"""
from __future__ import annotations

from dataclasses import dataclass

from harness.model.gpu_code import BuildCode, LibraryCode

FAMILIES = {3: "Kepler", 5: "Maxwell", 6: "Pascal", 7: "Volta/Turing", 8: "Ampere/Ada", 9: "Hopper", 10: "Blackwell",
            12: "Blackwell"}


@dataclass(frozen=True)
class Fit:
    """How a build meets a GPU: ``how`` is sass, ptx-jit, partial (some fat binaries have no code for
    it: their kernels fail if called, the others run), none, or cpu-build; ``text`` says it in a sentence."""

    runs: bool
    how: str
    text: str
    jit_from: int | None = None  # the PTX architecture the driver compiles from (ptx-jit)
    missing: int = 0  # fat binaries with no code for the GPU
    total: int = 0


def _sass_fits(sass: frozenset[int], cc: int) -> bool:
    return any(arch // 10 == cc // 10 and arch % 10 <= cc % 10 for arch in sass)


def _ptx_for(ptx: frozenset[int], cc: int) -> int | None:
    fitting = [arch for arch in ptx if arch <= cc]
    return max(fitting) if fitting else None


def _archs(values: frozenset[int], prefix: str) -> str:
    return ", ".join(f"{prefix}_{a}" for a in sorted(values)) or "none"


def _without(lib: LibraryCode, cc: int) -> int:
    """How many of the library's fat binaries have neither machine code nor PTX for ``cc``."""
    return sum(n for sass, ptx, n in lib.units if not _sass_fits(sass, cc) and _ptx_for(ptx, cc) is None)


def _jit_from(lib: LibraryCode, cc: int) -> int | None:
    """The oldest PTX the driver compiles for the library's units that lack machine code for ``cc``."""
    needed = [_ptx_for(ptx, cc) for sass, ptx, _ in lib.units if not _sass_fits(sass, cc)]
    return min((arch for arch in needed if arch is not None), default=None)


VENDOR = ("libcublas", "libcudnn", "libcufft", "libcurand", "libcusolver", "libcusparse", "libnccl", "libnvrtc",
          "libcupti", "libcheckpoint", "libnvblas", "libnvjitlink", "libnvToolsExt", "libnvshmem", "libcudart")


def _vendor(lib: LibraryCode) -> bool:
    """NVIDIA's own libraries (cuBLAS, cuDNN, ...): they ship kernels per architecture and pick the
    GPU's at run time, so a fat binary made for other GPUs only is not a gap; a library with no code
    at all for the GPU is."""
    return lib.name.rsplit("/", 1)[-1].startswith(VENDOR) or lib.name.startswith("nvidia/")


def fit(build: BuildCode, capability: tuple[int, int], gpu: str, release: str) -> Fit:
    """Whether ``release`` (its libraries' code in ``build``) runs on ``gpu`` of compute capability
    ``capability``, and how, in one sentence naming the cause where it does not. The framework's own
    libraries decide; NVIDIA's that it carries or requires are named where they have nothing for the GPU."""
    cc = capability[0] * 10 + capability[1]
    here = f"sm_{cc}"
    if not build.libraries:
        return Fit(False, "cpu-build", f"{release} is a CPU build: no GPU code in its libraries, so it cannot use {gpu}")
    own = [lib for lib in build.libraries if not _vendor(lib)] or list(build.libraries)
    vendor_gaps = [lib for lib in build.libraries if _vendor(lib) and lib not in own
                   and not _sass_fits(lib.sass, cc) and _ptx_for(lib.ptx, cc) is None]
    also = (f"; {_names(vendor_gaps)} {'has' if len(vendor_gaps) == 1 else 'have'} no {here} code either: calls into "
            f"{'it' if len(vendor_gaps) == 1 else 'them'} fail") if vendor_gaps else ""
    judged = [lib for lib in own if not _sass_fits(lib.sass, cc)]  # machine code for the GPU: it runs as built
    total = sum(lib.count for lib in judged)
    missing = sum(_without(lib, cc) for lib in judged)
    dead = sorted((lib for lib in judged if _without(lib, cc) == lib.count),
                  key=lambda lib: -lib.count)  # the library with the most kernels first
    if dead:
        sass = frozenset().union(*(lib.sass for lib in dead))
        ptx = frozenset().union(*(lib.ptx for lib in dead))
        newest = max(sass) if sass else None
        reach = f"; it runs on {FAMILIES.get(newest // 10, 'older')} GPUs up to sm_{newest}" if newest else ""
        return Fit(False, "none", f"{release}: {_names(dead)} {'has' if len(dead) == 1 else 'have'} no {here} code and no "
                                  f"PTX the driver could compile for it (machine code {_archs(sass, 'sm')}; PTX "
                                  f"{_archs(ptx, 'compute')}): cannot run on {gpu}{reach}{also}",
                   missing=missing, total=total)
    jitted = [(lib, arch) for lib in judged if (arch := _jit_from(lib, cc)) is not None]
    lowest = min((arch for _, arch in jitted), default=None)
    how = (f"by JIT-compiling PTX (compute_{lowest} and up) in {_names([lib for lib, _ in jitted])}: the first start "
           "pays the compile, the JIT cache keeps it") if jitted else f"from its own {here} machine code"
    if missing:
        lacking = [lib for lib in judged if _without(lib, cc)]
        return Fit(True, "partial", f"{release}: {missing} of the {total} fat binaries of {_names(lacking)} have no {here} "
                                    f"code and no PTX for it: their kernels fail on {gpu} if called ('no kernel image is "
                                    f"available'); the others run {how}{also}", jit_from=lowest, missing=missing, total=total)
    kind = "ptx-jit" if jitted else "sass"
    return Fit(True, kind, f"{release} runs on {gpu} {how}{also}", jit_from=lowest, total=total)


def _names(libraries: list[LibraryCode] | tuple[LibraryCode, ...]) -> str:
    names = [lib.name.rsplit("/", 1)[-1] for lib in libraries]
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
