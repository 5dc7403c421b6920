"""Folders of packages the tool itself needs beside an environment, made once per pin in its cache.

IPython for a notebook's environment (ipython_site.py) and virtualenv 20.21.1, the last release that
makes Python 2.7 environments (venvs.py), are installed with ``pip install --target`` into
``~/.cache/gpu-cleanup-matrix/NAME``: made in a scratch folder and moved into place whole, so two runs
never see half of one; readable by a container's non-root user. ``python``: the version the folder
is for, where it is not this Python's (then wheels only, for Linux x86_64). An index that does not say a
file's Requires-Python (a mirror's bare listing) lets pip take a release that Python cannot import
(traitlets 5.16 for Python 3.9): each installed distribution's own Requires-Python is checked after, and one
that excludes the Python is installed again with that release left out; a dependency whose marker holds
only for that Python (`typing_extensions; python_version < "3.10"`, which pip judges by its own
interpreter) is added.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from harness.common.errors import BuildError
from harness.environments.images import BuildOptions
from harness.measurement import subproc

INSTALL_TIMEOUT_S = 600.0
CHECKED = ".runs-on-its-python"  # written once every distribution in the folder is known to fit its Python


def cache_root() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gpu-cleanup-matrix"


def venv_cache() -> Path:
    """Where the venv backend keeps its virtualenvs unless --venv-dir says: one per user, not per working folder
    (a torch environment is gigabytes)."""
    return cache_root() / "venvs"


def _unfit(site: Path, python: str) -> list[str]:
    """What to ask pip for again so that ``site`` runs on ``python``: ``name!=version`` for each distribution
    whose Requires-Python excludes it, and each requirement whose marker holds there but that is missing."""
    from email.parser import HeaderParser

    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.utils import canonicalize_name
    from packaging.version import Version

    heads = [HeaderParser().parsestr(meta.read_text(encoding="utf-8", errors="replace"))
             for meta in site.glob("*.dist-info/METADATA")]
    there = {canonicalize_name(str(head.get("Name"))) for head in heads}
    marker_env = {"python_version": python, "python_full_version": f"{python}.0", "extra": ""}
    out = []
    for head in heads:
        try:
            if Version(python) not in SpecifierSet(head.get("Requires-Python") or ""):
                out.append(f"{head.get('Name')}!={head.get('Version')}")
        except InvalidSpecifier:
            pass
        for text in head.get_all("Requires-Dist") or []:
            try:
                wanted = Requirement(text)
            except InvalidRequirement:
                continue
            if (wanted.marker is not None and wanted.marker.evaluate(marker_env)
                    and canonicalize_name(wanted.name) not in there):
                out.append(f"{wanted.name}{wanted.specifier}")
    return sorted(set(out))


def _pip_argv(pin: str, target: Path, build: BuildOptions, python: str | None) -> list[str]:
    argv = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-compile",
            "--target", str(target)]
    if python is not None:
        argv += ["--python-version", python, "--implementation", "cp", "--platform", "manylinux2014_x86_64",
                 "--only-binary=:all:"]
    if build.wheelhouse is not None:
        argv += ["--find-links", str(build.wheelhouse)]
    if build.offline:
        argv += ["--no-index"]
    return [*argv, pin]


def ensure(folder: Path, marker: str, pin: str, build: BuildOptions, what: str, python: str | None = None) -> bool:
    """``folder`` holding ``pin`` (``marker``: a file of it that says it is there), made when missing;
    whether it was there. BuildError, naming ``what`` it is for, when pip cannot install it."""
    fits = python or f"{sys.version_info.major}.{sys.version_info.minor}"
    if (folder / marker).is_file():
        if (folder / CHECKED).is_file() or not _unfit(folder, fits):  # one made before the check is checked once
            (folder / CHECKED).touch()
            return True
        shutil.rmtree(folder, ignore_errors=True)
    folder.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=folder.name + ".", dir=folder.parent))
    try:
        left_out: list[str] = []
        for _ in range(4):  # each round leaves out the releases the last one installed that cannot run there
            shutil.rmtree(scratch / "site", ignore_errors=True)
            try:
                done = subproc.run([*_pip_argv(pin, scratch / "site", build, python), *left_out],
                                   timeout=INSTALL_TIMEOUT_S)
            except subprocess.TimeoutExpired as exc:
                raise BuildError(f"installing {pin} for {what} took over {INSTALL_TIMEOUT_S:.0f} s") from exc
            if done.returncode != 0:
                last = [line for line in done.stdout.splitlines() if line.strip()][-1:] or ["(no output)"]
                raise BuildError(f"{pin} could not be installed for {what}: {last[0].strip()} (with --offline, put "
                                 "its wheels in --wheelhouse)", detail=done.stdout)
            unfit = _unfit(scratch / "site", fits)
            if not unfit:
                break
            left_out += unfit
        else:
            raise BuildError(f"{pin} for {what}: the index keeps offering releases that Python {python} cannot run "
                             f"({', '.join(left_out)}): put wheels that fit in --wheelhouse")
        (scratch / "site" / CHECKED).touch()
        for path in scratch.rglob("*"):  # a container's non-root user reads it
            path.chmod(0o755 if path.is_dir() else 0o644)
        scratch.chmod(0o755)
        try:
            os.rename(scratch / "site", folder)
        except OSError:  # another run moved its copy in first: that one serves
            if not (folder / marker).is_file():
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return False
