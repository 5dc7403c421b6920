"""Which GPUs a framework build can run on, read from its own libraries before anything runs.

A CUDA library carries its kernels in fat binaries (the ``.nv_fatbin`` section): machine code
(SASS) for some SM architectures and, often, PTX that the driver compiles for newer ones. An old
wheel on a new GPU runs from its SASS where one fits, else from PTX the driver JIT-compiles
(once; the JIT cache keeps it), else not at all ("no kernel image is available"). Reading the
containers takes seconds and no GPU: a release that cannot run here is said with its cause
instead of being built, run and crashed (judgement/gpu_code.py words it).

Fat binary layout (as cuobjdump reads it): a 16-byte header (magic 0xBA55ED50, version 1, header
size 16, the size of what follows), then entries, each a
header (kind at 0: 1 PTX, 2 or 0x10 an ELF cubin; its own size at 4, 64 bytes and more in newer
toolkits; its payload's padded size at 8; the SM architecture at 28, 90 for sm_90) followed by its
payload. Every container in the file is read, not only the ``.nv_fatbin`` section's that cuobjdump
lists: cuFFT keeps most of its kernels elsewhere and loads them itself. Checked against cuobjdump
and real runs on an H100 (matrix/reference/h100-580.159.04-cuda-code/).
"""
from __future__ import annotations

import mmap
import shutil
import struct
import tempfile
import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from harness.model.gpu_code import BuildCode, LibraryCode

# An executable container's magic; a relocatable one (0x466243B1, code kept for device linking, never
# loaded as it is) is not read.
MAGICS = (struct.pack("<I", 0xBA55ED50),)
PTX, ELF_KINDS = 1, (2, 0x10)


def units(data: bytes | mmap.mmap) -> dict[tuple[frozenset[int], frozenset[int]], int]:
    """Every fat binary container in ``data``: (SASS architectures, PTX architectures) -> how many."""
    found: dict[tuple[frozenset[int], frozenset[int]], int] = {}
    for _, _, unit in containers(data):
        found[unit] = found.get(unit, 0) + 1
    return found


def containers(data: bytes | mmap.mmap) -> Iterator[tuple[int, int, tuple[frozenset[int], frozenset[int]]]]:
    """Each fat binary container in ``data``: where it starts and ends, and its (SASS, PTX) architectures."""
    for magic in MAGICS:
        at = data.find(magic)
        while at != -1:
            end, unit = _container(data, at)
            if unit is not None:
                yield at, end, unit
            at = data.find(magic, max(end, at + 4))


def architectures(data: bytes | mmap.mmap) -> tuple[set[int], set[int]]:
    """(SASS architectures, PTX architectures) of every container in ``data``: what cuobjdump lists."""
    found = units(data)
    return set().union(*(s for s, _ in found)), set().union(*(p for _, p in found))


def _container(data: bytes | mmap.mmap, start: int) -> tuple[int, tuple[frozenset[int], frozenset[int]] | None]:
    """Where the next search begins, and the container's (SASS, PTX) architectures; None for a
    magic that is not a container's (a pattern inside some payload): its entries must chain from
    its header to exactly its end."""
    if start + 16 > len(data):
        return start + 4, None
    version, header, size = (int(v) for v in struct.unpack_from("<HHQ", data, start + 4))
    if version != 1 or header != 16 or start + 16 + size > len(data):
        return start + 4, None
    entry, end = start + 16, start + 16 + size
    sass: set[int] = set()
    ptx: set[int] = set()
    while entry + 64 <= end:
        kind, entry_size, padded = (int(v) for v in struct.unpack_from("<H2xIQ", data, entry))
        arch = int(struct.unpack_from("<I", data, entry + 28)[0])
        # an entry's header is 64 bytes and grows with newer toolkits (80, 104, 112 seen): any multiple of 8 up to 256
        if not (64 <= entry_size <= 256 and entry_size % 8 == 0) or not 10 <= arch <= 200 or kind not in (PTX, *ELF_KINDS, 0x40):
            return start + 4, None
        (ptx if kind == PTX else sass if kind in ELF_KINDS else set()).add(arch)
        entry += entry_size + padded
    if end - entry >= 64 or entry > end or not (sass or ptx):  # the chain stops short of, or runs past, its end
        return start + 4, None
    return end, (frozenset(sass), frozenset(ptx))


def read_library(path: Path, name: str | None = None) -> LibraryCode:
    with path.open("rb") as handle:
        if path.stat().st_size == 0:
            return LibraryCode(name or path.name)
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
            found = units(data)
    return LibraryCode(name or path.name, tuple((s, p, n) for (s, p), n in sorted(found.items(), key=_order)))


def _order(item: tuple[tuple[frozenset[int], frozenset[int]], int]) -> tuple[list[int], list[int]]:
    (sass, ptx), _ = item
    return sorted(sass), sorted(ptx)


def _is_library(name: str) -> bool:
    base = name.rsplit("/", 1)[-1]
    return ".so" in base and not base.endswith(".py")


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
