"""What the host knows of one framework (each module beside this one declares one)."""
from __future__ import annotations

import fnmatch
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True, kw_only=True)
class Framework:
    name: str  # its import name
    families: tuple[str, ...]  # API families of its scenarios (folders under harness/scenarios)
    distributions: tuple[str, ...]  # pip names that install it; shell patterns allowed (cupy-cuda*)
    libraries: tuple[str, ...] = ()  # import names of libraries that load it (repro, --with)
    companions: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (its releases, as a specifier; pins they need)
    reported_with: tuple[str, ...] = ()  # imports whose versions are recorded beside its own (keras, jaxlib)
    variables: tuple[str, ...] = ()  # environment variables that change its memory, recorded with each cell
    # (its GPU releases, as a specifier; the CUDA wheels a virtualenv of them needs beside its pins): for a
    # release that finds its CUDA libraries on the library path only, as a CUDA base image provides them
    venv_cuda: tuple[tuple[str, tuple[str, ...]], ...] = ()
    families_of_release: Callable[[str], tuple[str, ...]] | None = field(default=None, compare=False)

    def families_for(self, version: str) -> tuple[str, ...]:
        """The families a release of it runs (TensorFlow 1.x: tf1 only)."""
        return self.families_of_release(version) if self.families_of_release else self.families

    def installs(self, distribution: str) -> bool:
        name = distribution.lower().replace("_", "-")
        return any(fnmatch.fnmatchcase(name, pattern) for pattern in self.distributions)
