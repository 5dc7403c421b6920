"""A framework build's GPU code, as its libraries carry it (read by environments/cuda_code.py,
judged by judgement/gpu_code.py): per library, the SM architectures it has machine code for and
those it has PTX for."""
from __future__ import annotations

from dataclasses import dataclass, field

Unit = tuple[frozenset[int], frozenset[int], int]  # one kind of fat binary: (SASS archs, PTX archs, how many)


@dataclass(frozen=True)
class LibraryCode:
    """One shared library's GPU code, by fat binary (a compilation unit's kernels each): a library
    runs on a GPU only when every unit has code for it, so the units are kept, not only their union."""

    name: str
    units: tuple[Unit, ...] = ()

    @property
    def sass(self) -> frozenset[int]:
        return frozenset().union(*(sass for sass, _, _ in self.units))

    @property
    def ptx(self) -> frozenset[int]:
        return frozenset().union(*(ptx for _, ptx, _ in self.units))

    @property
    def count(self) -> int:
        """How many fat binaries it holds."""
        return sum(n for _, _, n in self.units)

    @property
    def has_code(self) -> bool:
        return bool(self.units)


@dataclass(frozen=True)
class BuildCode:
    """A framework build's libraries that carry GPU code (a CPU build has none)."""

    libraries: tuple[LibraryCode, ...] = field(default_factory=tuple)
