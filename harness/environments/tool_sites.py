"""Folders of packages the tool itself needs beside an environment, made once per pin in its cache.

IPython for a notebook's environment (ipython_site.py) and virtualenv 20.21.1, the last release that
makes Python 2.7 environments (venvs.py), are installed with ``pip install --target`` into
``~/.cache/gpu-cleanup-matrix/NAME``: made in a scratch folder and moved into place whole, so two runs
never see half of one; readable by a container's non-root user. ``python``: the version the folder
is for, where it is not this Python's (then wheels only, for Linux x86_64).
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


def cache_root() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gpu-cleanup-matrix"


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
    if (folder / marker).is_file():
        return True
    folder.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=folder.name + ".", dir=folder.parent))
    try:
        try:
            done = subproc.run(_pip_argv(pin, scratch / "site", build, python), timeout=INSTALL_TIMEOUT_S)
        except subprocess.TimeoutExpired as exc:
            raise BuildError(f"installing {pin} for {what} took over {INSTALL_TIMEOUT_S:.0f} s") from exc
        if done.returncode != 0:
            last = [line for line in done.stdout.splitlines() if line.strip()][-1:] or ["(no output)"]
            raise BuildError(f"{pin} could not be installed for {what}: {last[0].strip()} (with --offline, put its "
                             "wheels in --wheelhouse)", detail=done.stdout)
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
