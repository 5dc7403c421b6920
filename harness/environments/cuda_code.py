"""Which GPUs a framework build can run on, read from its own libraries before anything runs.

A CUDA library carries its kernels in fat binaries (the ``.nv_fatbin`` section): machine code
(SASS) for some SM architectures and, often, PTX that the driver compiles for newer ones. An old
wheel on a new GPU runs from its SASS where one fits, else from PTX the driver JIT-compiles
(once; the JIT cache keeps it), else not at all ("no kernel image is available"). Reading the
containers takes seconds and no GPU: a release that cannot run here is said with its cause
instead of being built, run and crashed (judgement/gpu_code.py words it).

Fat binary layout (as cuobjdump reads it): a 16-byte header (magic 0xBA55ED50, version 1, header
size 16, the size of what follows), then entries, each a header (kind at 0: 1 PTX, 2 or 0x10 an
ELF cubin; its own size at 4; its payload's padded size at 8; the SM architecture at 28, 90 for
sm_90) followed by its payload.
"""
from __future__ import annotations

import mmap
import shutil
import struct
import tempfile
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

MAGIC = struct.pack("<I", 0xBA55ED50)
PTX, ELF_KINDS = 1, (2, 0x10)
ENTRY_SIZES = (64, 80, 112)


@dataclass(frozen=True)
class LibraryCode:
    """One shared library's GPU code: SM architectures with machine code, and with PTX."""

    name: str
    sass: frozenset[int] = frozenset()
    ptx: frozenset[int] = frozenset()

    @property
    def has_code(self) -> bool:
        return bool(self.sass or self.ptx)


@dataclass(frozen=True)
class BuildCode:
    """A framework build's libraries that carry GPU code (a CPU build has none)."""

    libraries: tuple[LibraryCode, ...] = field(default_factory=tuple)


def architectures(data: bytes | mmap.mmap) -> tuple[set[int], set[int]]:
    """(SASS architectures, PTX architectures) of every fat binary container in ``data``."""
    sass: set[int] = set()
    ptx: set[int] = set()
    at = data.find(MAGIC)
    while at != -1:
        end = _container(data, at, sass, ptx)
        at = data.find(MAGIC, max(end, at + 4))
    return sass, ptx


def _container(data: bytes | mmap.mmap, start: int, sass: set[int], ptx: set[int]) -> int:
    """Read the container at ``start`` into ``sass``/``ptx``; where the next search begins (a magic
    that is not a container's, a pattern inside some payload, is passed over)."""
    if start + 16 > len(data):
        return start + 4
    version, header, size = (int(v) for v in struct.unpack_from("<HHQ", data, start + 4))
    if version != 1 or header != 16 or start + 16 + size > len(data):
        return start + 4
    entry, end, found = start + 16, start + 16 + size, []
    while entry + 64 <= end:
        kind, entry_size, padded = (int(v) for v in struct.unpack_from("<H2xIQ", data, entry))
        arch = int(struct.unpack_from("<I", data, entry + 28)[0])
        if entry_size not in ENTRY_SIZES or not 10 <= arch <= 200 or kind not in (PTX, *ELF_KINDS, 0x40):
            return start + 4  # not a container after all
        found.append((kind, arch))
        entry += entry_size + padded
    for kind, arch in found:
        (ptx if kind == PTX else sass if kind in ELF_KINDS else set()).add(arch)
    return end


def read_library(path: Path, name: str | None = None) -> LibraryCode:
    with path.open("rb") as handle:
        if path.stat().st_size == 0:
            return LibraryCode(name or path.name)
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
            sass, ptx = architectures(data)
    return LibraryCode(name or path.name, frozenset(sass), frozenset(ptx))


def _is_library(name: str) -> bool:
    base = name.rsplit("/", 1)[-1]
    return ".so" in base and not base.endswith(".py")


def read_site(folder: Path) -> BuildCode:
    """Every shared library under ``folder`` (an installed site-packages, an image's files)."""
    return BuildCode(tuple(lib for lib in (read_library(p, str(p.relative_to(folder)))
                                           for p in sorted(folder.rglob("*.so*")) if p.is_file() and _is_library(p.name))
                           if lib.has_code))


def read_wheels(wheels: Iterable[Path]) -> BuildCode:
    """Every shared library inside the wheels, each unpacked alone to a temporary file."""
    return BuildCode(tuple(lib for wheel in wheels for lib in _wheel_libraries(wheel) if lib.has_code))


def _wheel_libraries(wheel: Path) -> Iterator[LibraryCode]:
    with zipfile.ZipFile(wheel) as archive, tempfile.TemporaryDirectory(prefix="cuda-code-") as scratch:
        for member in archive.infolist():
            if member.is_dir() or not _is_library(member.filename):
                continue
            target = Path(scratch) / "lib"
            with archive.open(member) as source, target.open("wb") as sink:
                shutil.copyfileobj(source, sink, 1 << 24)
            yield read_library(target, member.filename)
            target.unlink()
