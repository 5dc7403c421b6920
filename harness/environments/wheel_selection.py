"""The wheels of a wheelhouse that one image's pins can use.

A build copies the wheels it is handed into its context, and that copy stays in the image as a
layer. A wheelhouse that serves a sweep holds every release and each release's CUDA wheels
(torch 2.12 to 2.15: four cuDNNs, three NCCLs, two CUDA toolkits), so copying all of it into every
image would make each image carry the others' gigabytes. Only the wheels a pin reaches go in: the
pinned projects and, through each chosen wheel's Requires-Dist, everything it may need, with the
extras asked for. Markers are judged for Linux on x86-64 and every Python from 2.7 to 3.15 (the
image's Python decides, not this host's), so the choice can hold a wheel too many, never one too few.
"""
from __future__ import annotations

import zipfile
from collections import defaultdict
from collections.abc import Iterable
from email.parser import HeaderParser
from pathlib import Path

from packaging.markers import Marker
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import InvalidWheelFilename, canonicalize_name, parse_wheel_filename
from packaging.version import Version

LINUX = {"sys_platform": "linux", "platform_system": "Linux", "platform_machine": "x86_64", "os_name": "posix",
         "implementation_name": "cpython", "platform_python_implementation": "CPython"}
PYTHONS = ("2.7", *(f"3.{minor}" for minor in range(5, 16)))
ALWAYS = frozenset({"pip", "setuptools", "wheel"})  # what a build may need to install anything at all


def wheels_for(requirements: Iterable[str], wheelhouse: Path) -> list[Path]:
    """The wheels in ``wheelhouse`` that pip could install for ``requirements``, sorted by name."""
    by_name = _index(wheelhouse)
    chosen: set[Path] = {path for name in ALWAYS for _, path in by_name.get(name, ())}
    expanded: set[tuple[Path, frozenset[str]]] = set()
    todo = [req for req in (_requirement(text) for text in requirements) if req is not None]
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


def _needs(wheel: Path, extras: set[str]) -> list[Requirement]:
    """The wheel's Requires-Dist that apply with ``extras`` asked for (other markers kept)."""
    try:
        with zipfile.ZipFile(wheel) as archive:
            name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA") and n.count("/") == 1)
            metadata = HeaderParser().parsestr(archive.read(name).decode("utf-8", "replace"))
    except (zipfile.BadZipFile, StopIteration, OSError):
        return []  # unreadable: pip will say so at install; it needs nothing from here
    needs = []
    for text in metadata.get_all("Requires-Dist") or ():
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
