"""The wheels of a wheelhouse that one image's pins can use.

A build copies the wheels it is handed into its context, and that copy stays in the image as a
layer. A wheelhouse that serves a sweep holds every release and each release's CUDA wheels
(torch 2.12 to 2.15: four cuDNNs, three NCCLs, two CUDA toolkits), so copying all of it into every
image would make each image carry the others' gigabytes. Only the wheels a pin reaches go in: the
pinned projects and, through each chosen wheel's Requires-Dist, everything it may need, with the
extras asked for. Markers are judged for Linux on x86-64 and every Python from 2.7 to 3.15 (the
image's Python decides, not this host's), so the choice can hold a wheel too many, never one too few.
Versions no install could use are left out first: where a project must be installed (a pin, or what
every candidate of a project that must be installed requires under every Python), what it pins binds
the project's other requirers too, so cuDNN's bare `nvidia-cublas-cu12` takes only the cuBLAS the
TensorFlow release pins, not every cuBLAS of the wheelhouse.
"""
from __future__ import annotations

import zipfile
from collections import defaultdict
from collections.abc import Iterable
from email.parser import HeaderParser
from functools import lru_cache
from pathlib import Path

from packaging.markers import Marker
from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import InvalidWheelFilename, canonicalize_name, parse_wheel_filename
from packaging.version import Version

LINUX = {"sys_platform": "linux", "platform_system": "Linux", "platform_machine": "x86_64", "os_name": "posix",
         "implementation_name": "cpython", "platform_python_implementation": "CPython"}
PYTHONS = ("2.7", *(f"3.{minor}" for minor in range(5, 16)))
ALWAYS = frozenset({"pip", "setuptools", "wheel"})  # what a build may need to install anything at all


def wheels_for(requirements: Iterable[str], wheelhouse: Path) -> list[Path]:
    """The wheels in ``wheelhouse`` that pip could install for ``requirements``, sorted by name."""
    roots = [req for req in (_requirement(text) for text in requirements) if req is not None]
    by_name = _usable(roots, _index(wheelhouse))
    chosen: set[Path] = {path for name in ALWAYS for _, path in by_name.get(name, ())}
    expanded: set[tuple[Path, frozenset[str]]] = set()
    todo = list(roots)
    while todo:
        req = todo.pop()
        for version, path in by_name.get(canonicalize_name(req.name), ()):
            if not req.specifier.contains(version, prereleases=True):
                continue
            chosen.add(path)
            key = (path, frozenset(req.extras))
            if key not in expanded:
                expanded.add(key)
                todo.extend(_needs(path, req.extras))
    return sorted(chosen)


def _index(wheelhouse: Path) -> dict[str, list[tuple[Version, Path]]]:
    by_name: dict[str, list[tuple[Version, Path]]] = defaultdict(list)
    for path in sorted(wheelhouse.glob("*.whl")):
        try:
            name, version, _, _ = parse_wheel_filename(path.name)
        except InvalidWheelFilename:
            continue
        by_name[str(name)].append((version, path))
    return by_name


def _requirement(text: str) -> Requirement | None:
    try:
        return Requirement(text)
    except InvalidRequirement:
        return None  # a line pip reads otherwise (a URL, an option): it names no wheel here


Wheels = dict[str, list[tuple[Version, Path]]]  # a project's wheels by version
Bound = tuple[str, frozenset[str], tuple[SpecifierSet, ...]]  # a project that must be installed: one of these ranges


def _usable(roots: list[Requirement], by_name: Wheels) -> Wheels:
    """``by_name`` without the versions a requirement every install must meet rules out, narrowed until
    nothing changes (a narrower choice of one project can make more of what it needs certain)."""
    while True:
        narrowed = dict(by_name)
        for name, bounds in _certain(roots, by_name).items():
            kept = [(v, p) for v, p in by_name.get(name, ()) if all(any(s.contains(v, prereleases=True) for s in specs)
                                                              for specs in bounds)]
            if kept:  # nothing fits: pip will say so; hand over what there is
                narrowed[name] = kept
        if narrowed == by_name:
            return by_name
        by_name = narrowed


def _certain(roots: list[Requirement], by_name: Wheels) -> dict[str, list[tuple[SpecifierSet, ...]]]:
    """For each project that must be installed, the ranges one of which its version must fall in, each
    bound: the pins, then what every wheel a bound project may take requires under every Python."""
    todo: list[Bound] = [(canonicalize_name(r.name), frozenset(r.extras), (r.specifier,)) for r in roots
                         if _always(r.marker, set())]
    seen: set[Bound] = set()
    bounds: dict[str, list[tuple[SpecifierSet, ...]]] = defaultdict(list)
    while todo:
        bound = todo.pop()
        if bound in seen:
            continue
        seen.add(bound)
        name, extras, specs = bound
        bounds[name].append(specs)
        candidates = [p for v, p in by_name.get(name, ()) if any(s.contains(v, prereleases=True) for s in specs)]
        if not candidates:
            continue
        each = [{canonicalize_name(r.name): r for r in _needs(path, set(extras)) if _always(r.marker, set(extras))}
                for path in candidates]
        for needed in sorted(set.intersection(*(set(reqs) for reqs in each))):
            reqs = [reqs[needed] for reqs in each]
            common = frozenset.intersection(*(frozenset(r.extras) for r in reqs))
            todo.append((needed, common, tuple(sorted({r.specifier for r in reqs}, key=str))))
    return bounds


def _always(marker: Marker | None, extras: set[str]) -> bool:
    """Whether a requirement applies on Linux x86-64 under every Python, with ``extras`` asked for."""
    if marker is None:
        return True
    return all(any(marker.evaluate({**LINUX, "python_version": python, "python_full_version": python + ".0", "extra": extra})
                   for extra in (*extras, "")) for python in PYTHONS)


def _requires(wheel: Path) -> tuple[str, ...]:
    try:
        stat = wheel.stat()
    except OSError:
        return ()
    return _read_requires(wheel, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=4096)
def _read_requires(wheel: Path, mtime_ns: int, size: int) -> tuple[str, ...]:
    """A wheel's Requires-Dist lines, read once (a sweep's wheelhouse is read for every image)."""
    try:
        with zipfile.ZipFile(wheel) as archive:
            name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA") and n.count("/") == 1)
            metadata = HeaderParser().parsestr(archive.read(name).decode("utf-8", "replace"))
    except (zipfile.BadZipFile, StopIteration, OSError):
        return ()  # unreadable: pip will say so at install; it needs nothing from here
    return tuple(metadata.get_all("Requires-Dist") or ())


def _needs(wheel: Path, extras: set[str]) -> list[Requirement]:
    """The wheel's Requires-Dist that apply with ``extras`` asked for (other markers kept)."""
    needs = []
    for text in _requires(wheel):
        req = _requirement(text)
        if req is not None and _applies(req.marker, extras):
            needs.append(req)
    return needs


def _applies(marker: Marker | None, extras: set[str]) -> bool:
    """Whether a requirement applies on Linux x86-64 under any Python, with one of ``extras`` (or none)."""
    if marker is None:
        return True
    return any(marker.evaluate({**LINUX, "python_version": python, "python_full_version": python + ".0", "extra": extra})
               for python in PYTHONS for extra in (*extras, ""))
