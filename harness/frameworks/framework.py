"""What the host knows of one framework (each module beside this one declares one)."""
from __future__ import annotations

import fnmatch
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class GpuBuild:
    """How a range of a framework's releases is made for a GPU: the CUDA base its image is built on, the
    pip extra (and where its wheels are) that installs its CUDA build, or why none can be made here."""

    releases: str  # a specifier over the framework's releases
    base: str = ""  # the base image ("{ubuntu}": chosen by the release's Pythons; "{version}": the release); "": CUDA 12's
    python: str = ""  # the one Python that base holds (TF's own 1.x images: 2.7)
    extra: str = ""  # the extra of the framework's own distribution that installs its CUDA build (and-cuda, cuda12)
    find_links: str = ""  # where that build's wheels are, when not on the index
    unavailable: str = ""  # why no CUDA build of these releases can be made here, and what to do
    distribution: str = ""  # only for the distributions this pattern matches (cupy-cuda11*), else every one
    ubuntus: tuple[str, ...] = ()  # the Ubuntu releases ``base`` exists for; on another, CUDA 12's base
    # CUDA wheels a virtualenv of these releases installs beside its pins, their libraries on its cells' library
    # path: what the base gives an image, for releases that find CUDA on the library path only and ship none
    venv_cuda: tuple[str, ...] = ()
    # sonames these releases load that those wheels ship under a newer one, as "LOADED=SHIPPED"
    # (libcusolver.so.10=libcusolver.so.11): linked under the old name in a folder first on that library path
    venv_aliases: tuple[str, ...] = ()
    # the folder of those wheels (site-packages relative) whose include/ holds the CUDA headers these releases
    # compile their kernels with at run time, found through CUDA_PATH (CuPy 8 bundles none; without it,
    # /usr/local/cuda's, of whatever CUDA the host has)
    venv_cuda_path: str = ""
    # CUDA libraries of their era that no pip wheel ships as such, fetched into the virtualenv and first on its
    # cells' library path (environments/venv_libs): "deb:POOL-PATH" of Ubuntu's archive, "wheel:PIN:MEMBER"
    venv_libraries: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Framework:
    name: str  # its import name
    families: tuple[str, ...]  # API families of its scenarios (folders under harness/scenarios)
    distributions: tuple[str, ...]  # pip names that install it; shell patterns allowed (cupy-cuda*)
    libraries: tuple[str, ...] = ()  # import names of libraries that load it (repro, --with)
    companions: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (its releases, as a specifier; pins they need)
    reported_with: tuple[str, ...] = ()  # imports whose versions are recorded beside its own (keras, jaxlib)
    variables: tuple[str, ...] = ()  # environment variables that change its memory, recorded with each cell
    gpu_builds: tuple[GpuBuild, ...] = ()  # newest first; the first whose releases hold a release decides
    # its own index of builds by local version ("{local}": cu110 of torch==1.7.1+cu110), where a pin with a local
    # version is found, and the local version of its CPU-only build there (the cpu variant's, smaller than PyPI's)
    local_index: str = ""
    cpu_local: str = ""
    released_with: str = ""  # a distribution released in lockstep (jaxlib): pinned at the same version beside it
    # the releases (a specifier) that import where CUDA's libraries are absent; "": every one. An image without CUDA
    # (the cpu variant) does not try to import the others: CuPy before 13 links libcublas and cannot
    imports_without_cuda: str = ""
    families_of_release: Callable[[str], tuple[str, ...]] | None = field(default=None, compare=False)
    needs_gpu: str = ""  # why it cannot run without an NVIDIA GPU (no CPU build): its environment is not made there
    # its allocator maps GPU memory as it is asked (torch, CuPy), never a whole pool at the first touch: what that
    # touch takes beyond it is the CUDA runtime's (judgement/floors.py, where no framework count says so)
    pool_grows_lazily: bool = False

    def families_for(self, version: str) -> tuple[str, ...]:
        """The families a release of it runs (TensorFlow 1.x: tf1 only)."""
        return self.families_of_release(version) if self.families_of_release else self.families

    def gpu_build(self, version: Any, distribution: str) -> GpuBuild:
        """How this release of this distribution is made for a GPU (its registry entry; the CUDA 12 base where
        it names none)."""
        from packaging.specifiers import SpecifierSet

        return next((b for b in self.gpu_builds if SpecifierSet(b.releases).contains(version, prereleases=True)
                     and (not b.distribution or _matches(distribution, b.distribution))), GpuBuild(releases=""))

    def imports_on_cpu(self, version: Any) -> bool:
        """Whether this release imports on a host without CUDA's libraries (imports_without_cuda)."""
        from packaging.specifiers import SpecifierSet

        return SpecifierSet(self.imports_without_cuda).contains(version, prereleases=True)

    def installs(self, distribution: str) -> bool:
        return any(_matches(distribution, pattern) for pattern in self.distributions)


def _matches(distribution: str, pattern: str) -> bool:
    """A pip name against a name or shell pattern of the registry (cupy-cuda*), as pip spells names alike."""
    return fnmatch.fnmatchcase(distribution.lower().replace("_", "-"), pattern)
