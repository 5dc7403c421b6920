"""What a package index offers: the releases of a package and the Pythons each has wheels for.

Read through the index's JSON simple API (PEP 691), the protocol pip itself speaks, so a private
index works like PyPI. A release's Pythons come from its wheel file names (``cp311``, ``abi3``,
``py3-none-any``) for Linux x86_64 and from ``Requires-Python``; nothing is downloaded. A local
folder of wheels (a wheelhouse, as pip's ``--find-links`` takes it) is an index too, for machines
that reach none: its releases are its files, ``Requires-Python`` read from each wheel's metadata.
"""
from __future__ import annotations

import functools
import html
import json
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import InvalidWheelFilename, canonicalize_name, parse_wheel_filename
from packaging.version import InvalidVersion, Version

from harness.common.errors import EnvironmentNotFound, UsageError
from harness.definitions import config
from harness.environments import pins

DEFAULT_INDEX = config.DEFAULT_INDEX
ACCEPT = "application/vnd.pypi.simple.v1+json, text/html;q=0.1"  # an index without JSON answers HTML (PEP 503)
ANCHOR = re.compile(r"<a\s([^>]*)>([^<]+)</a>", re.IGNORECASE)
# Pythons an environment can be made with (an image base or a virtualenv), newest first.
SDISTS = (".tar.gz", ".zip", ".tar.bz2", ".tgz")
PYTHONS = ("3.14", "3.13", "3.12", "3.11", "3.10", "3.9", "3.8", "3.7", "3.6", "3.5", "2.7")


@dataclass(frozen=True)
class Release:
    version: Version
    wheels: tuple[str, ...]  # wheel file names usable on Linux x86_64
    requires_python: str
    sdist: bool
    yanked: bool

    def pythons(self) -> tuple[str, ...]:
        """Pythons (X.Y, newest first) this release installs on from a wheel: () when none."""
        wanted: set[str] = set()
        for name in self.wheels:
            wanted |= _wheel_pythons(name)
        allowed = _requires(self.requires_python)
        return tuple(py for py in PYTHONS if py in wanted and (allowed is None or allowed.contains(py + ".0")))


def _requires(text: str) -> SpecifierSet | None:
    try:
        return SpecifierSet(text) if text else None
    except InvalidSpecifier:
        return None


def _wheel_pythons(filename: str) -> set[str]:
    try:
        _, _, _, tags = parse_wheel_filename(filename)
    except (InvalidWheelFilename, InvalidVersion):
        return set()
    found: set[str] = set()
    for tag in tags:
        if not _linux_x86(tag.platform):
            continue
        if tag.interpreter.startswith("cp") and tag.abi == "abi3":
            low = _xy(tag.interpreter[2:])
            found |= {py for py in PYTHONS if low and py.startswith("3.") and Version(py) >= Version(low)}
        elif tag.interpreter.startswith("cp") and not tag.abi.endswith("t"):  # free-threaded builds aside
            found |= {_xy(tag.interpreter[2:])} - {""}
        elif tag.interpreter.startswith("py"):
            major = tag.interpreter[2:3]
            found |= {py for py in PYTHONS if py.startswith(major + ".")}
    return found


def _linux_x86(platform: str) -> bool:
    return platform in ("any", "linux_x86_64") or (platform.startswith("manylinux") and platform.endswith("x86_64"))


def _xy(digits: str) -> str:
    return f"{digits[0]}.{digits[1:]}" if len(digits) >= 2 and digits.isdigit() else ""


@functools.lru_cache(maxsize=64)
def releases(package: str, index_url: str = DEFAULT_INDEX, timeout: float = 30.0) -> dict[Version, Release]:
    """Every release the index lists for ``package``, by version (unsorted). Read once per process:
    a bisect asks for the same page at every step (callers never change what comes back)."""
    flat = _wheelhouse(index_url, package)
    if flat is not None:
        return collect(package, flat)
    url = f"{index_url.rstrip('/')}/{canonicalize_name(package)}/"
    if url.startswith("file:"):
        url += "index.html"  # a folder index: each project page is a file
    import urllib.error  # here: urllib.request costs every command ~25 ms at start-up
    import urllib.request

    request = urllib.request.Request(url, headers={"Accept": ACCEPT})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body = response.read().decode("utf-8", errors="replace")
            is_json = "json" in response.headers.get("Content-Type", "")
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            raise UsageError(f"{index_url} has no package {package!r}: check the name") from exc
        raise EnvironmentNotFound(f"package index {index_url} answered {exc.code} for {package}: try again later") from exc
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, FileNotFoundError):  # a folder index without that project
            raise UsageError(f"{index_url} has no package {package!r}: check the name") from exc
        raise EnvironmentNotFound(f"package index {index_url} unreachable ({exc.reason}): check the network, "
                                  f"or give a reachable --index-url") from exc
    except (OSError, ValueError) as exc:
        raise EnvironmentNotFound(f"package index {index_url} unreachable ({exc}): check the network, "
                                  f"or give a reachable --index-url") from exc
    return collect(package, json.loads(body).get("files", []) if is_json else _anchors(body))


def _wheelhouse(index_url: str, package: str) -> list[dict[str, object]] | None:
    """A local folder of distribution files, in PEP 691's shape; None when ``index_url`` is not one
    (a URL, or a folder index with a page per project)."""
    parsed = urlparse(index_url)
    if parsed.scheme not in ("", "file"):
        return None
    folder = Path(unquote(parsed.path) if parsed.scheme else index_url).expanduser()
    if not folder.is_dir():
        return None
    held = [path for path in sorted(folder.iterdir()) if path.name.endswith((".whl", *SDISTS)) and path.is_file()]
    if not held:
        return None  # a folder index: a page per project
    files: list[dict[str, object]] = [{"filename": path.name, "requires-python": _wheel_requires_python(path)}
                                      for path in held if _file_version(path.name, package) is not None]
    if not files:
        raise UsageError(f"{index_url} has no package {package!r}: check the name")
    return files


def _wheel_requires_python(path: Path) -> str:
    if path.suffix != ".whl":
        return ""
    try:
        with zipfile.ZipFile(path) as archive:
            name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
            for line in archive.read(name).decode("utf-8", errors="replace").splitlines():
                if not line.strip():
                    break  # the headers end at the first blank line
                if line.lower().startswith("requires-python:"):
                    return line.split(":", 1)[1].strip()
    except (OSError, zipfile.BadZipFile, StopIteration):
        pass
    return ""


def _anchors(page: str) -> list[dict[str, object]]:
    """A PEP 503 HTML page's files, in PEP 691's shape."""
    files: list[dict[str, object]] = []
    for attrs, text in ANCHOR.findall(page):
        requires = re.search(r'data-requires-python="([^"]*)"', attrs)
        files.append({"filename": html.unescape(text.strip()), "yanked": "data-yanked" in attrs,
                      "requires-python": html.unescape(requires.group(1)) if requires else ""})
    return files


def collect(package: str, files: list[dict[str, object]]) -> dict[Version, Release]:
    """Group an index page's files (PEP 691 entries) into releases."""
    wheels: dict[Version, list[str]] = {}
    requires: dict[Version, str] = {}
    sdist: set[Version] = set()
    live: set[Version] = set()  # at least one file not yanked
    for item in files:
        name = str(item.get("filename", ""))
        version = _file_version(name, package)
        if version is None:
            continue
        wheels.setdefault(version, [])
        requires[version] = requires.get(version) or str(item.get("requires-python") or "")
        if not item.get("yanked"):
            live.add(version)
        if not name.endswith(".whl"):
            sdist.add(version)
        elif _wheel_pythons(name):
            wheels[version].append(name)
    return {v: Release(v, tuple(w), requires[v], v in sdist, v not in live) for v, w in wheels.items()}


def _file_version(filename: str, package: str) -> Version | None:
    try:
        if filename.endswith(".whl"):
            project, release, _, _ = parse_wheel_filename(filename)
            return release if project == canonicalize_name(package) else None
        stem = filename
        for ext in SDISTS:
            if stem.endswith(ext):
                stem = stem[: -len(ext)]
                break
        else:
            return None
        name, _, version = stem.rpartition("-")
        return Version(version) if canonicalize_name(name) == canonicalize_name(package) else None
    except (InvalidWheelFilename, InvalidVersion):
        return None


def version_arg(text: str, flag: str) -> Version:
    """A version given on the command line (``flag`` names it in the error)."""
    try:
        return Version(text)
    except InvalidVersion as exc:
        raise UsageError(f"{flag} {text!r} is not a version (like 2.9.2)") from exc


def package_arg(text: str) -> tuple[str, str]:
    """``--package jax[cuda13-local]``: the distribution whose releases are read, and how each release's
    pin names it (``jax[cuda13-local]==0.8.3``: extras kept, as they choose the build)."""
    try:
        req = Requirement(text)
    except InvalidRequirement as exc:
        raise UsageError(f"--package {text!r} is not a distribution name (like jax, or jax[cuda13-local])") from exc
    if req.specifier or req.url or req.marker:
        raise UsageError(f"--package {text!r}: name the distribution alone; the releases come from the other flags")
    extras = f"[{','.join(sorted(req.extras))}]" if req.extras else ""
    return req.name, f"{canonicalize_name(req.name)}{extras}"


def release_pins(package: str, versions: list[Version], fixed: list[str]) -> list[str]:
    """Each release's environment pin: the package at that release, with the ``fixed`` pins (--with)
    every column carries (``accelerate==1.2.1,torch==2.5.1``); the package itself cannot be fixed."""
    name, pinned_as = package_arg(package)
    held = [str(r) for text in fixed for r in pins.parse(text)]
    for pin in held:
        if canonicalize_name(pin.split("==")[0].split("[")[0]) == canonicalize_name(name):
            raise UsageError(f"--with {pin}: {name} is the package whose releases vary; --with pins the others")
    return [",".join([f"{pinned_as}=={v}", *held]) for v in versions]


def releases_with(package: str, index_url: str, named: dict[str, Version]) -> dict[Version, Release]:
    """The index's releases of ``package``, after checking it lists each release named by a flag."""
    found = releases(package, index_url)
    for flag, version in named.items():
        if version not in found:
            raise UsageError(f"{flag} {version}: {package} has no such release on {index_url}")
    return found


def between(found: dict[Version, Release], good: Version, bad: Version, pre: bool = False) -> list[Version]:
    """The releases from ``good`` to ``bad`` (both included, in either order), oldest first.

    Final releases only unless ``pre``; yanked ones are left out, except the two ends.
    """
    low, high = min(good, bad), max(good, bad)
    chosen = [v for v, r in found.items() if low <= v <= high and (pre or not (v.is_prerelease or v.is_devrelease))
              and (not r.yanked or v in (good, bad))]
    return sorted(chosen)
