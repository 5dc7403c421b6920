"""IPython for a notebook's environment, where the environment has none of its own.

A notebook runs in a real IPython shell (agent/notebook.py), but an environment is made from the
framework's pins and a container has no network. So the host installs IPython once per Python
(pinned: the last release each Python runs) into a folder of its cache with ``pip install
--target``, and the cell mounts it read-only; the agent appends it to ``sys.path`` only when the
environment cannot import IPython itself. Made in a scratch folder and moved into place whole, so
two runs never see half of one.
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

# The newest IPython each Python runs (Requires-Python of its releases); newer Pythons take the last row.
PINS = {"3.5": "7.9.0", "3.6": "7.16.3", "3.7": "7.34.0", "3.8": "8.12.3", "3.9": "8.18.1", "3.10": "8.37.0",
        "3.11": "9.18.1"}
INSTALL_TIMEOUT_S = 600.0


def pin_for(python: str) -> str:
    """``ipython==X`` for a Python ``3.N``; BuildError for one no IPython wheel runs on here."""
    if python.startswith("2."):
        raise BuildError(f"a notebook needs IPython, and IPython 5 (the last for Python {python}) depends on "
                         "`simplegeneric`, which has no wheel: run the notebook in an environment of Python 3 "
                         "(tf2.7 runs TF1 graph code through tf.compat.v1)")
    major, minor = (int(part) for part in python.split(".")[:2])
    known = sorted(PINS, key=lambda v: tuple(int(p) for p in v.split(".")))
    fitting = [v for v in known if tuple(int(p) for p in v.split(".")) <= (major, minor)]
    return f"ipython=={PINS[fitting[-1] if fitting else known[0]]}"


def cache_root() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gpu-cleanup-matrix" / "ipython"


def _pip_argv(python: str, pin: str, target: Path, build: BuildOptions) -> list[str]:
    argv = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-compile",
            "--target", str(target), "--python-version", python, "--implementation", "cp",
            "--platform", "manylinux2014_x86_64", "--only-binary=:all:", pin]
    if build.wheelhouse is not None:
        argv += ["--find-links", str(build.wheelhouse)]
    if build.offline:
        argv += ["--no-index"]
    return argv


def ensure(python: str, build: BuildOptions) -> tuple[Path, bool]:
    """The folder of IPython for ``python`` (``3.11``), made when missing; and whether it was there."""
    pin = pin_for(python)
    folder = cache_root() / f"py{python}-{pin.split('==')[1]}"
    if (folder / "IPython" / "__init__.py").is_file():
        return folder, True
    folder.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=folder.name + ".", dir=folder.parent))
    try:
        try:
            done = subproc.run(_pip_argv(python, pin, scratch / "site", build), timeout=INSTALL_TIMEOUT_S)
        except subprocess.TimeoutExpired as exc:
            raise BuildError(f"installing {pin} for Python {python} took over {INSTALL_TIMEOUT_S:.0f} s") from exc
        if done.returncode != 0:
            last = [line for line in done.stdout.splitlines() if line.strip()][-1:] or ["(no output)"]
            raise BuildError(f"IPython for Python {python} ({pin}) could not be installed: {last[0].strip()}; "
                             "a notebook needs it (with --offline, put its wheels in --wheelhouse)", detail=done.stdout)
        for path in scratch.rglob("*"):  # a container's non-root user reads it
            path.chmod(0o755 if path.is_dir() else 0o644)
        scratch.chmod(0o755)
        try:
            os.rename(scratch / "site", folder)
        except OSError:  # another run moved its copy in first: that one serves
            if not (folder / "IPython" / "__init__.py").is_file():
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return folder, False
