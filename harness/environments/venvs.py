"""Virtualenvs as environments, for machines without Docker (the venv backend).

Each environment gets a virtualenv made with its own Python version (``python_version`` in
matrix/environments.toml) holding the same pins its image would (the variant's packages). Cells
then run in it through the process backend, measured the same way. A virtualenv is reused while
its definition (Python version, pins, index) is unchanged: a marker file inside records the
definition hash once the install has succeeded, so a half-made one is never taken for ready.
"""
from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

from harness.environments.config import EnvDef
from harness.environments.images import BuildOptions, index_reachable
from harness.measurement import subproc

MARKER = ".harness-venv.json"
CREATE_TIMEOUT_S = 300
INSTALL_TIMEOUT_S = 3600
Note = Callable[[str], None]


class EnvSkipped(Exception):
    """This environment cannot run here; the message says why and what to do."""


def find_python(version: str) -> str | None:
    """An interpreter of ``version`` that really runs (a pyenv shim for an inactive version does not)."""
    for name in (f"python{version}", f"python{version.split('.')[0]}" if "." in version else ""):
        path = shutil.which(name) if name else None
        if not path:
            continue
        try:
            out = subprocess.run([path, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                                 capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.SubprocessError):
            continue
        if out.returncode == 0 and out.stdout.strip() == version:
            return path
    return None


def definition_hash(env: EnvDef, variant: str, python: str) -> str:
    data = {"python_version": env.python_version, "python": python, "pins": asdict(env.variant(variant))}
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


def venv_python(folder: Path) -> Path:
    return folder / "bin" / "python"


def ensure(env: EnvDef, variant: str, root: Path, options: BuildOptions, note: Note) -> tuple[str, bool]:
    """The interpreter of ``env``'s virtualenv (made or reused) and whether it was reused.

    EnvSkipped when the env's Python is not on this machine or the install fails.
    """
    if not env.python_version:
        raise EnvSkipped(f"{env.name} names no python_version; run it with Docker")
    python = find_python(env.python_version)
    if python is None:
        raise EnvSkipped(f"python{env.python_version} not found: install it, or run with Docker")
    folder = root / f"{env.name}-{variant}"
    wanted = definition_hash(env, variant, python)
    marker = folder / MARKER
    if marker.is_file() and json.loads(marker.read_text()).get("hash") == wanted and venv_python(folder).exists():
        return str(venv_python(folder)), True
    if folder.exists():
        shutil.rmtree(folder)
    note(f"{env.name}: making a virtualenv with python{env.python_version} ({' '.join(env.variant(variant).packages)})")
    _create(python, env.python_version, folder)
    _install(env, variant, folder, options, note)
    marker.write_text(json.dumps({"hash": wanted, "python": python, "packages": list(env.variant(variant).packages)}))
    return str(venv_python(folder)), False


def _create(python: str, version: str, folder: Path) -> None:
    folder.parent.mkdir(parents=True, exist_ok=True)
    # Python 3 has venv; Python 2.7 needs the virtualenv package (nox's other backend).
    module = "venv" if not version.startswith("2") else "virtualenv"
    result = subproc.run([python, "-m", module, str(folder)], timeout=CREATE_TIMEOUT_S)
    if result.returncode != 0:
        hint = "pip install virtualenv for that Python, " if module == "virtualenv" else ""
        raise EnvSkipped(f"could not make a virtualenv with {python} ({result.stdout.strip().splitlines()[-1:]}); "
                         f"{hint}or run with Docker")


def _install(env: EnvDef, variant: str, folder: Path, options: BuildOptions, note: Note) -> None:
    pins = env.variant(variant)
    argv = [str(venv_python(folder)), "-m", "pip", "install", "--disable-pip-version-check", *pins.pip_options]
    if options.wheelhouse is not None:
        argv += ["--find-links", str(options.wheelhouse)]
    if options.offline:
        argv.append("--no-index")
    elif pins.index_url:
        if index_reachable(pins.index_url):
            argv += ["--extra-index-url", pins.index_url]
        else:
            note(f"{env.name}: package index {pins.index_url} unreachable; using the wheelhouse and PyPI")
    try:
        result = subproc.run([*argv, *pins.packages], timeout=INSTALL_TIMEOUT_S)
    except subprocess.TimeoutExpired as exc:
        raise EnvSkipped(f"installing {' '.join(pins.packages)} took over {INSTALL_TIMEOUT_S}s") from exc
    if result.returncode != 0:
        tail = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else "no output"
        raise EnvSkipped(f"pip could not install {' '.join(pins.packages)} ({tail}); fix the pins or run with Docker")
