"""How the CUDA libraries a virtualenv fetched for itself (environments/venv_libs: Ubuntu's packages, a wheel's
member), and the older sonames it links to newer libraries, are said, the same wherever they are named: the note
that the virtualenv is being made, repro.md and the answer's caveat."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePosixPath


def said(entries: Sequence[str]) -> str:
    """"libcudart10.1 10.1.243-3, ... from Ubuntu's packages; libcudnn.so.7 from cupy-cuda101==7.8.0's wheel"."""
    debs = [PurePosixPath(e.removeprefix("deb:")).name.removesuffix("_amd64.deb").replace("_", " ")
            for e in entries if e.startswith("deb:")]
    wheels = [f"{PurePosixPath(member).name} from {pin}'s wheel"
              for pin, _, member in (e.removeprefix("wheel:").partition(":") for e in entries if e.startswith("wheel:"))]
    return "; ".join(([f"{', '.join(debs)} from Ubuntu's packages"] if debs else []) + wheels)


def aliases_said(aliases: Sequence[str]) -> list[str]:
    """"libcusolver.so.10=libcusolver.so.11" (the name loaded = the library behind it) as "libcusolver.so.10 as
    libcusolver.so.11"."""
    return [alias.replace("=", " as ") for alias in aliases]
