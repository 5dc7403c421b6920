"""Before a release asked for with ``--with`` is built on a GPU host: can it run on these GPUs?

Its framework's wheel is fetched (pip download, no dependencies; from the wheelhouse where one is
given) and read (cuda_code.py); the judge (judgement/gpu_code.py) says whether it runs on each GPU
model of the host and how. A release with no code any of them can run is not built: its cells are
skipped with the sentence ("torch==1.13.1: libtorch_cuda_cu.so has no sm_90 code and no PTX ...:
cannot run on an NVIDIA H100 80GB HBM3; it runs on Ampere/Ada GPUs up to sm_87"), never a build of
gigabytes that then fails in every cell. One that runs by JIT-compiling PTX, or only in part, is
built and said so. What was read is kept (one small JSON per wheel in the tool's cache): asking
again, for another GPU too, reads nothing. A wheel that cannot be fetched (no index answers) is
said in a line and the release is built as before.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from harness.common import pinned
from harness.definitions.config import EnvDef
from harness.environments import cuda_code
from harness.environments.images import BuildOptions
from harness.environments.tool_sites import cache_root
from harness.judgement import gpu_code
from harness.measurement import subproc
from harness.measurement.nvml import GpuFacts
from harness.model.gpu_code import BuildCode, LibraryCode

PLATFORMS = ("manylinux1_x86_64", "manylinux2010_x86_64", "manylinux2014_x86_64", "manylinux_2_17_x86_64",
             "manylinux_2_27_x86_64", "manylinux_2_28_x86_64", "manylinux_2_34_x86_64")
DOWNLOAD_TIMEOUT_S = 1800


# The wheels that carry a framework's GPU code, in the order they are looked for (JAX's is in its
# CUDA plugin where it has one, else in jaxlib; jax itself is pure Python). Not CuPy: it compiles
# its kernels at run time with NVRTC, whose CUDA release decides, which its wheel does not show.
GPU_WHEELS = tuple(re.compile(p) for p in (r"torch", r"tensorflow(_gpu)?", r"jax_cuda\d+_pjrt", r"jax_cuda\d+_plugin",
                                           r"jaxlib"))


def _cuda_plugin(package: str) -> str | None:
    """jax[cuda12]==0.4.31 -> jax-cuda12-pjrt==0.4.31: a CUDA extra's plugin, where JAX's GPU code is
    (jaxlib beside it is the CPU build)."""
    for req, version in pinned.exact(package):
        cuda = next((m for extra in sorted(req.extras) if (m := re.match(r"cuda(\d+)", extra))), None)
        if req.name == "jax" and cuda:
            return f"jax-cuda{cuda.group(1)}-pjrt=={version}"
    return None


def framework_pin(env: EnvDef, variant: str) -> str | None:
    """The pin among the environment's packages whose wheel carries the framework's GPU code."""
    plugin = next((p for package in env.variant(variant).packages if (p := _cuda_plugin(package))), None)
    if plugin:
        return plugin
    names = {re.split(r"[=<>!~\[ ;]", package, maxsplit=1)[0].replace("-", "_").lower(): package
             for package in env.variant(variant).packages}
    return next((names[name] for pattern in GPU_WHEELS for name in names if pattern.fullmatch(name)), None)


def fetch_wheel(pin: str, python: str, into: Path, build: BuildOptions, index_url: str = "") -> list[Path]:
    """``pin``'s own wheel for ``python`` on Linux x86-64 (no dependencies), downloaded into ``into``
    by pip (stopped with the run on Ctrl-C); LookupError with pip's last line when it cannot be had."""
    argv = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:", "--python-version",
            python, *(f"--platform={p}" for p in PLATFORMS), "-d", str(into)]
    if build.wheelhouse is not None:
        argv += ["--find-links", str(build.wheelhouse)]
    if build.offline:
        argv.append("--no-index")
    elif index_url:
        argv += ["--extra-index-url", index_url]
    before = set(into.glob("*.whl"))
    done = subproc.run([*argv, pin], timeout=DOWNLOAD_TIMEOUT_S)
    if done.returncode != 0:
        lines = [line for line in done.stdout.splitlines() if line.strip()]
        raise LookupError(lines[-1].strip() if lines else f"pip download {pin} failed")
    return sorted(set(into.glob("*.whl")) - before)


def read_release(pin: str, python: str, build: BuildOptions, index_url: str = "") -> BuildCode:
    """The GPU code of ``pin``'s wheel for ``python``, read once and kept in the tool's cache."""
    kept = cache_root() / "gpu-code" / f"{pin.replace('/', '_')}-py{python}.json"
    if kept.is_file():
        return _loaded(json.loads(kept.read_text(encoding="utf-8")))
    with tempfile.TemporaryDirectory(prefix="gpu-fit-") as scratch:
        code = cuda_code.read_wheels(fetch_wheel(pin, python, Path(scratch), build, index_url))
    kept.parent.mkdir(parents=True, exist_ok=True)
    kept.write_text(json.dumps(_saved(code)), encoding="utf-8")
    return code


def _read_any(pin: str, pythons: tuple[str, ...], build: BuildOptions, index_url: str) -> BuildCode:
    """The release's GPU code from its wheel for the first of ``pythons`` that can be had (a release's
    wheels for each Python carry the same GPU code; a wheelhouse may hold only one of them)."""
    for python in pythons[:-1]:
        try:
            return read_release(pin, python, build, index_url)
        except LookupError:
            continue
    return read_release(pin, pythons[-1], build, index_url)


def judge(env: EnvDef, variant: str, gpus: list[GpuFacts], build: BuildOptions) -> tuple[str | None, list[str]]:
    """(why the release cannot run on these GPUs, or None; what to say of how it runs) for an
    environment made from ``--with`` pins, on a GPU host; (None, []) elsewhere."""
    pin = framework_pin(env, variant) if env.pin and variant == "gpu" else None
    models = {(gpu.name, gpu.compute_capability) for gpu in gpus if gpu.compute_capability}
    if pin is None or not models:
        return None, []
    try:
        code = _read_any(pin, (env.python_version, *env.other_pythons), build, env.variant(variant).index_url)
    except (LookupError, OSError, subprocess.TimeoutExpired) as exc:
        return None, [f"{env.name}: its wheel could not be read before building ({exc}): built as it is"]
    said: list[str] = []
    for name, capability in sorted((n, c) for n, c in models if c is not None):
        fit = gpu_code.fit(code, capability, name, pin)
        if fit.how == "none":  # nothing these GPUs run: not built (a CPU build is built and judged as it runs)
            return fit.text.removeprefix(f"{pin}: "), said  # said beside the environment's name, which is the pin
        if fit.how != "sass":
            said.append(fit.text)  # it begins with the release
    return None, said


def _saved(code: BuildCode) -> list[dict[str, object]]:
    return [{"name": lib.name, "units": [[sorted(s), sorted(p), n] for s, p, n in lib.units]} for lib in code.libraries]


def _loaded(data: list[dict[str, Any]]) -> BuildCode:
    return BuildCode(tuple(LibraryCode(str(lib["name"]), tuple((frozenset(s), frozenset(p), int(n)) for s, p, n in lib["units"]))
                           for lib in data))
