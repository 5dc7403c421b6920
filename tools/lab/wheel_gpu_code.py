"""Which GPUs each release of a framework can run on, read from its PyPI wheels (no GPU needed):
the release's own wheel and the nvidia-* wheels it requires on Linux, each library's machine code
and PTX (harness/environments/cuda_code.py), judged for an H100 and an A100 (judgement/gpu_code.py).

    python tools/lab/wheel_gpu_code.py torch==1.4.0@3.7 torch==2.4.1@3.12 ... > table.md

Each wheel is downloaded to a scratch folder, read and deleted (a shared nvidia-* wheel is read once).
"""
from __future__ import annotations

import sys
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from harness.environments import cuda_code, gpu_fit  # noqa: E402
from harness.environments.images import BuildOptions  # noqa: E402
from harness.judgement import gpu_code  # noqa: E402
from harness.model.gpu_code import BuildCode, LibraryCode  # noqa: E402

GPUS = {"H100": (9, 0), "A100": (8, 0)}
seen: dict[str, tuple[LibraryCode, ...]] = {}


def download(requirement: str, python: str, into: Path) -> Path:
    (wheel,) = gpu_fit.fetch_wheel(requirement, python, into, BuildOptions())
    return wheel


def nvidia_requirements(wheel: Path) -> list[str]:
    """The nvidia-* wheels the release requires on Linux x86-64 (its CUDA libraries, PyTorch >= 1.13)."""
    with zipfile.ZipFile(wheel) as archive:
        meta = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        lines = archive.read(meta).decode().splitlines()
    out = []
    for line in lines:
        if line.startswith("Requires-Dist: nvidia-") and "extra ==" not in line:
            spec = line.split(":", 1)[1].split(";")[0].strip().replace(" ", "").replace("(", "").replace(")", "")
            out.append(spec)
    return out


def libraries(requirement: str, python: str, scratch: Path) -> tuple[tuple[LibraryCode, ...], float, list[str]]:
    wheel = download(requirement, python, scratch)
    size = wheel.stat().st_size
    libs = list(cuda_code.read_wheels([wheel]).libraries)
    needs = nvidia_requirements(wheel)
    wheel.unlink()
    for need in needs:
        if need not in seen:
            dep = download(need, python, scratch)
            size += dep.stat().st_size
            seen[need] = cuda_code.read_wheels([dep]).libraries
            dep.unlink()
        libs += seen[need]
    return tuple(libs), size / 2**30, needs


def archs(values: frozenset[int], prefix: str) -> str:
    ordered = sorted(values)
    return f"{prefix}_{ordered[0]}-{ordered[-1]} ({len(ordered)})" if len(ordered) > 2 else \
        ", ".join(f"{prefix}_{a}" for a in ordered) or "-"


def main(specs: list[str]) -> int:
    print("| release | Python | wheels read | framework's own code: machine / PTX | H100 (sm_90) | A100 (sm_80) | "
          "fat binaries without sm_90 code or PTX |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="wheel-gpu-code-") as folder:
        for spec in specs:
            requirement, python = spec.rsplit("@", 1)
            began = time.monotonic()
            try:
                libs, gib, needs = libraries(requirement, python, Path(folder))
            except LookupError:
                print(f"| {requirement} | {python} | not on PyPI for Linux x86-64 and this Python |||||")
                continue
            own = [lib for lib in libs if not lib.name.startswith("nvidia/")]
            sass = frozenset().union(*(lib.sass for lib in own)) if own else frozenset()
            ptx = frozenset().union(*(lib.ptx for lib in own)) if own else frozenset()
            fits = {gpu: gpu_code.fit(BuildCode(libs), cc, f"an {gpu}", requirement) for gpu, cc in GPUS.items()}
            each = [(lib, gpu_code.fit(BuildCode((lib,)), GPUS["H100"], "", "")) for lib in libs]
            lacking = [f"{lib.name.rsplit('/', 1)[-1]} {f.missing} of {f.total}" for lib, f in each if f.missing]
            how = {gpu: (f"{f.how}" + (f" (JIT from compute_{f.jit_from})" if f.jit_from else "")) for gpu, f in fits.items()}
            print(f"| {requirement} | {python} | {1 + len(needs)} ({gib:.2f} GiB, {time.monotonic() - began:.0f} s) | "
                  f"{archs(sass, 'sm')} / {archs(ptx, 'compute')} | {how['H100']} | {how['A100']} | "
                  f"{', '.join(lacking) or '-'} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
