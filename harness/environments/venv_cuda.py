"""What a virtualenv of a release that ships no CUDA gets beside its pins (the registry's GPU build: NVIDIA's CUDA
wheels, older sonames linked to theirs, the folder of their headers) and what its cells are given of them."""
from __future__ import annotations

import os
from pathlib import Path

from harness.common.fetched_libraries import aliases_said, said
from harness.definitions.config import EnvDef, VariantDef
from harness.environments import venv_libs

ALIASES = "cuda-aliases"  # a virtualenv's folder of old sonames linked to its CUDA wheels' newer ones


def described(pins: VariantDef) -> str:
    """"CUDA from NVIDIA's wheels (cusolver 11.4.1.48; libcusolver.so.10 as libcusolver.so.11)", for the note
    that the virtualenv is being made."""
    aliased = "".join(f"; {alias}" for alias in aliases_said(pins.venv_aliases))
    headers = f"; CUDA_PATH {pins.venv_cuda_path}" if pins.venv_cuda_path else ""
    fetched = said(pins.venv_libraries)
    wheels = f"CUDA from NVIDIA's wheels ({_named(pins.venv_cuda)}{aliased}{headers})" if pins.venv_cuda else ""
    return " + ".join(part for part in (wheels, f"CUDA libraries fetched ({fetched})" if fetched else "") if part)


def _named(wheels: tuple[str, ...]) -> str:
    """``nvidia-cudnn-cu11==8.7.0.84, ...`` said short: "cudnn 8.7.0.84, cublas 11.11.3.6"."""
    return ", ".join(w.split("==")[0].removeprefix("nvidia-").rsplit("-cu", 1)[0] + " " + w.partition("==")[2]
                     for w in wheels)


def library_path(env: EnvDef, variant: str, python: str) -> str:
    """The library folders of the CUDA wheels the virtualenv of ``python`` installed for ``env`` (its
    ``venv_cuda``), its folder of older sonames first, for its cells' LD_LIBRARY_PATH; "" for an environment
    that installs none."""
    pins = env.variants.get(variant)
    if pins is None or not (pins.venv_cuda or pins.venv_libraries):
        return ""
    folder = Path(python).parent.parent
    own = [folder / name for name in (ALIASES, venv_libs.LIBS) if (folder / name).is_dir()]
    return ":".join(str(lib) for lib in [*own, *sorted(folder.glob("lib/python*/site-packages/nvidia/*/lib"))])


def cuda_path(env: EnvDef, variant: str, python: str) -> str:
    """The folder of the virtualenv of ``python`` its cells' CUDA_PATH names (``venv_cuda_path``: the CUDA wheel
    whose include/ holds the headers the release compiles with); "" where the environment names none."""
    wanted = pins.venv_cuda_path if (pins := env.variants.get(variant)) else ""
    found = sorted(Path(python).parent.parent.glob(f"lib/python*/site-packages/{wanted}")) if wanted else []
    return str(found[0]) if found else ""


def link_aliases(folder: Path, pins: VariantDef) -> str | None:
    """Each soname the release loads linked to the newer one its CUDA wheels ship or it fetched ("libcusolver.so.10=
    libcusolver.so.11": TensorFlow 2.4 was built against CUDA 11.0, whose cuSOLVER kept 10's name; "libcudart.so.10.0=
    libcudart.so.10.1": 1.14-2.0's CUDA 10.0, which no package holds), in one folder of the virtualenv; a name
    neither has is the problem, said."""
    if not pins.venv_aliases:
        return None
    shipped = {lib.name: lib for lib in [*folder.glob("lib/python*/site-packages/nvidia/*/lib/*.so*"),
                                         *(folder / venv_libs.LIBS).glob("*.so*")]}
    out = folder / ALIASES
    out.mkdir(exist_ok=True)
    for alias in pins.venv_aliases:
        loaded, _, newer = alias.partition("=")
        if newer not in shipped:
            holders = ([f"its CUDA wheels ({_named(pins.venv_cuda)})"] if pins.venv_cuda else []) + \
                ([f"the libraries it fetched ({said(pins.venv_libraries)})"] if pins.venv_libraries else [])
            which = f"neither {' nor '.join(holders)}" if len(holders) > 1 else f"none of {holders[0] if holders else 'its CUDA'}"
            return f"{which} holds {newer}, which it loads as {loaded}"
        (out / loaded).symlink_to(os.path.relpath(shipped[newer], out))
    return None


def missing_headers(folder: Path, pins: VariantDef) -> str | None:
    """A CUDA_PATH folder holding no include/ is the problem, said: its cells would compile with the host's
    headers, of another CUDA, and fail far from the cause."""
    if pins.venv_cuda_path and not any(folder.glob(f"lib/python*/site-packages/{pins.venv_cuda_path}/include")):
        return (f"none of its CUDA wheels ({_named(pins.venv_cuda)}) holds {pins.venv_cuda_path}/include, the CUDA "
                "headers it compiles its kernels with")
    return None
