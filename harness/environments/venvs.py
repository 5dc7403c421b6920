"""Virtualenvs as environments, for machines without Docker (the venv backend).

Each environment gets a virtualenv made with its own Python version (``python_version`` in
matrix/environments.toml) holding the same pins its image would (the variant's packages). Cells
then run in it through the process backend, measured the same way. A virtualenv is reused while
its definition (Python version, pins, index) is unchanged: a marker file inside records the
definition hash once the install has succeeded, so a half-made one is never taken for ready.

Several runs may share the folder: a lock per environment (filelock: a well-kept, cross-process
lock whose file outlives no process holding it) serialises their builds, and a new virtualenv is
built in a folder of its own; the environment's path is a symbolic link, pointed at it by one
atomic rename, so a run never sees a half-built environment and a working one is never removed
before its replacement has built. The key is the interpreter's
implementation and version, not the path of whichever ``pythonX.Y`` came first on PATH (nox's
and the shell's differ).
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness.common.errors import BuildError
from harness.definitions.config import EnvDef
from harness.environments import pip_failure, venv_cuda, venv_leftovers, venv_libs
from harness.environments.images import BuildOptions, index_reachable
from harness.environments.install_progress import InstallProgress, torch_build
from harness.measurement import subproc

MARKER = ".harness-venv.json"
CREATE_TIMEOUT_S = 300
INSTALL_TIMEOUT_S = 3600
Note = Callable[[str], None]


class EnvSkipped(Exception):
    """This environment cannot run here; the message says why and what to do."""


LOCK_TIMEOUT_S = INSTALL_TIMEOUT_S + CREATE_TIMEOUT_S
_IDENTITY = ("import platform, sys; "
             "print('%s %d.%d' % (platform.python_implementation(), sys.version_info[0], sys.version_info[1]))")


@functools.cache  # find_python and definition_hash ask about the same interpreter: one subprocess
def interpreter_identity(path: str) -> str | None:
    """``"CPython 3.11"``: what a virtualenv made with ``path`` runs, whatever the path; None when it does not run."""
    try:
        out = subprocess.run([path, "-c", _IDENTITY], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def find_python(version: str) -> str | None:
    """An interpreter of ``version`` that really runs: on PATH (a pyenv shim for an inactive version
    does not run), else one pyenv or uv installed but did not activate, newest patch first."""
    on_path = [shutil.which(name) for name in (f"python{version}", f"python{version.split('.')[0]}" if "." in version else "")
               if name]
    for path in [*(p for p in on_path if p), *installed_pythons(version)]:
        identity = interpreter_identity(path)
        if identity and identity.split()[-1] == version:
            return path
    return None


def runnable(python: str) -> str:
    """``--interpreter python3.10``: the name as given where it runs; else the one pyenv or uv keeps
    without its shell having it active (a pyenv shim of an inactive version names and refuses it)."""
    version = re.fullmatch(r"python(\d+\.\d+)", python)
    found = shutil.which(python)
    if version is None or (found and interpreter_identity(found)):
        return python
    return find_python(version.group(1)) or python


def installed_pythons(version: str) -> list[str]:
    """Interpreters of ``version`` that pyenv ($PYENV_ROOT, ~/.pyenv) and uv ($UV_PYTHON_INSTALL_DIR,
    ~/.local/share/uv/python) keep, whether or not a shell has them active: newest patch first."""
    home = Path.home()
    pyenv = Path(os.environ.get("PYENV_ROOT") or home / ".pyenv") / "versions"
    uv = Path(os.environ.get("UV_PYTHON_INSTALL_DIR") or home / ".local" / "share" / "uv" / "python")
    found = [*pyenv.glob(f"{version}.*/bin/python{version}"), *uv.glob(f"cpython-{version}.*/bin/python{version}")]

    def patch(path: Path) -> tuple[int, ...]:
        release = path.parents[1].name.removeprefix("cpython-").split("-")[0]
        return tuple(int(part) for part in release.split(".") if part.isdigit())
    return [str(path) for path in sorted(found, key=patch, reverse=True) if os.access(path, os.X_OK)]


def python_of(env: EnvDef) -> tuple[str, str] | None:
    """(interpreter, version) a virtualenv of ``env`` is made with: its Python where this host has it,
    else the first of the other Pythons its pins have wheels for that it has; None when none is here."""
    for version in (env.python_version, *env.other_pythons):
        found = find_python(version) if version else None
        if found:
            return found, version
    return None


def not_found(env: EnvDef) -> str:
    """Why no virtualenv of ``env`` can be made here, and the fix."""
    others = f" (nor {', '.join(env.other_pythons)}, which its pins also have wheels for)" if env.other_pythons else ""
    return f"python{env.python_version} not found{others}: install it, or run with Docker"


def definition_hash(env: EnvDef, variant: str, python: str, version: str | None = None) -> str:
    """The virtualenv's key: the interpreter's implementation and version (not its path) and the pins."""
    data = {"python_version": version or env.python_version, "interpreter": interpreter_identity(python) or python,
            "pins": env.variant(variant).hashed()}
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


def venv_python(folder: Path) -> Path:
    return folder / "bin" / "python"


def runs_python2(python: str) -> bool:
    """Whether the virtualenv of ``python`` (its bin/python) is a Python 2 one, read from its layout."""
    return any((Path(python).parent.parent / "lib").glob("python2.*"))


def ensure(env: EnvDef, variant: str, root: Path, options: BuildOptions, note: Note) -> tuple[str, bool]:
    """The interpreter of ``env``'s virtualenv (made or reused) and whether it was reused.

    EnvSkipped when the env's Python is not on this machine or the install fails.
    """
    if not env.python_version:
        raise EnvSkipped(f"{env.name} names no python_version; run it with Docker")
    found = python_of(env)
    if found is None:
        raise EnvSkipped(not_found(env))
    python, version = found
    folder = root / f"{env.name}-{variant}"
    wanted = definition_hash(env, variant, python, version)
    root.mkdir(parents=True, exist_ok=True)
    from filelock import FileLock  # here: it imports asyncio, ~0.1 s of every command's start-up

    lock = FileLock(str(root / f".{folder.name}.lock"))
    if _held(lock):
        note(f"{env.name}: another run is building {folder}; waiting for it")
    with lock.acquire(timeout=LOCK_TIMEOUT_S):
        for left in venv_leftovers.remove(root, folder):
            note(f"{env.name}: removed {left.name}, left by a build that was stopped")
        if _ready(folder, wanted):
            return str(venv_python(folder)), True
        instead = f" (no python{env.python_version} here; its wheels are for {version} too)" \
            if version != env.python_version else ""
        pins = env.variant(variant)
        cuda = f" + {venv_cuda.described(pins)}" if pins.venv_cuda or pins.venv_libraries else ""
        note(f"{env.name}: making a virtualenv with python{version}{instead} ({' '.join(pins.packages)}){cuda}")
        building = root / f".{folder.name}.{wanted}-{os.getpid()}"
        shutil.rmtree(building, ignore_errors=True)
        try:
            _create(python, version, building, options)
            sources = _install(env, variant, building, options, note)
            (building / MARKER).write_text(json.dumps({"hash": wanted, "python": python, "sources": sources,
                                                       "packages": list(env.variant(variant).packages)}))
        except BaseException:
            shutil.rmtree(building, ignore_errors=True)
            raise
        _swap_in(building, folder)
    return str(venv_python(folder)), False


def _held(lock: Any) -> bool:
    """Whether another process holds ``lock`` now (a zero-timeout try)."""
    try:
        lock.acquire(timeout=0)
    except TimeoutError:
        return True
    lock.release()
    return False


def sources_of(python: str) -> dict[str, str | None]:
    """Where a virtualenv's packages came from, as its build wrote it (``_install``): the index pip was given (``index_url``,
    None for PyPI alone) and why not the one asked for (``index_note``); {} for a virtualenv made before this was kept."""
    try:
        found = json.loads((Path(python).parents[1] / MARKER).read_text()).get("sources")
    except (OSError, ValueError, IndexError):
        return {}
    return dict(found) if isinstance(found, dict) else {}


def _ready(folder: Path, wanted: str) -> bool:
    marker = folder / MARKER
    try:
        return json.loads(marker.read_text()).get("hash") == wanted and venv_python(folder).exists()
    except (OSError, ValueError):
        return False


def _swap_in(built: Path, folder: Path) -> None:
    """Point ``folder`` (a symbolic link) at the finished virtualenv in one atomic rename; the old
    one is removed only now that its replacement works."""
    retired = folder.resolve() if folder.is_symlink() else None
    if folder.exists() and not folder.is_symlink():  # a plain folder, from before the link
        retired = folder.with_name(f".{folder.name}.old-{os.getpid()}")
        folder.rename(retired)
    link = folder.with_name(f".{folder.name}.link-{os.getpid()}")
    link.unlink(missing_ok=True)
    link.symlink_to(built.name)
    os.replace(link, folder)
    if retired is not None and retired != built:
        shutil.rmtree(retired, ignore_errors=True)


# The last virtualenv that makes Python 2.7 environments (20.22 dropped them), run from the tool's own
# Python: a Python 2.7 rarely has virtualenv of its own (TF 1.8's environment is one).
VIRTUALENV_PIN = "virtualenv==20.21.1"


def _create(python: str, version: str, folder: Path, options: BuildOptions) -> None:
    folder.parent.mkdir(parents=True, exist_ok=True)
    if not version.startswith("2"):  # Python 3 has venv
        argv, env = [python, "-m", "venv", str(folder)], None
    else:
        from harness.environments import tool_sites

        tool = tool_sites.cache_root() / VIRTUALENV_PIN.replace("==", "-")
        try:
            tool_sites.ensure(tool, "virtualenv/__init__.py", VIRTUALENV_PIN, options, f"a Python {version} virtualenv")
        except BuildError as exc:
            raise EnvSkipped(f"{exc.message}; or run with Docker") from exc
        argv = [sys.executable, "-m", "virtualenv", "--no-periodic-update", "-p", python, str(folder)]
        env = {**os.environ, "PYTHONPATH": str(tool)}
    result = subproc.run(argv, timeout=CREATE_TIMEOUT_S, env=env)
    if result.returncode != 0:
        raise EnvSkipped(f"could not make a virtualenv with {python} ({result.stdout.strip().splitlines()[-1:]}); "
                         "run with Docker")


# manylinux2014 wheels (and 2010's: TensorFlow 2.1-2.3, NVIDIA's) need pip 19.3; Python 3.6's venv brings 18.1,
# which does not read an index's Requires-Python: the last pip each old Python runs is named
PIP_FOR_MANYLINUX2014 = (19, 3)
LAST_PIP = {"3.5": "<21", "3.6": "<22", "3.7": "<24.1"}


def _recent_pip(pip: list[str], sources: list[str], name: str, note: Note) -> None:
    """A virtualenv whose pip is too old for manylinux2014 wheels gets the newest pip its Python runs first (from
    the index, or the wheelhouse offline); where that fails, the note names what to put in the wheelhouse."""
    found = re.match(r"pip (\d+)\.(\d+).*\(python (\d+\.\d+)\)", subproc.run([*pip, "--version"], timeout=60).stdout)
    if found is None or (int(found[1]), int(found[2])) >= PIP_FOR_MANYLINUX2014:
        return
    note(f"{name}: its pip {found[1]}.{found[2]} cannot install manylinux2014 wheels; upgrading pip first")
    wanted = "pip>=19.3" + ("," + LAST_PIP[found[3]] if found[3] in LAST_PIP else "")
    done = subproc.run([*pip, "install", "--disable-pip-version-check", "-q", *sources, "--upgrade", wanted],
                       timeout=CREATE_TIMEOUT_S)
    if done.returncode != 0:
        note(f"{name}: could not upgrade pip ({(done.stdout.strip().splitlines() or ['no output'])[-1]}); put a pip "
             "wheel its Python runs (21.3.1 for Python 3.6) in the wheelhouse")


def _install(env: EnvDef, variant: str, folder: Path, options: BuildOptions, note: Note) -> dict[str, str | None]:
    """pip install the environment's pins into ``folder``; where they came from (sources_of)."""
    pins = env.variant(variant)
    used: dict[str, str | None] = {"index_url": None if options.offline else pins.index_url or None}
    pip = [str(venv_python(folder)), "-m", "pip"]
    sources = ["--find-links", str(options.wheelhouse)] if options.wheelhouse is not None else []
    if options.offline:
        sources.append("--no-index")
    _recent_pip(pip, sources, env.name, note)
    argv = [*pip, "install", "--disable-pip-version-check", *pins.pip_options, *sources]
    if not options.offline and pins.index_url:
        if index_reachable(pins.index_url):
            argv += ["--extra-index-url", pins.index_url]
        else:
            cpu_only = pins.index_url.rstrip("/").endswith("/cpu")  # PyTorch's CPU builds are on that index alone
            note(f"{env.name}: package index {pins.index_url} unreachable; using the wheelhouse and PyPI"
                 + (" (PyPI's torch is the CUDA build: with its nvidia-* wheels, gigabytes)" if cpu_only else ""))
            used = {"index_url": None, "index_note": f"{pins.index_url} was unreachable when this virtualenv was made, "
                    "so it came from PyPI" + (": PyPI's torch is the CUDA build, and it runs on the CPU too"
                                              if cpu_only else "")}
    try:
        with InstallProgress(env.name, note) as progress:
            result = subproc.run([*argv, *pins.packages, *pins.venv_cuda], timeout=INSTALL_TIMEOUT_S,
                                 on_line=progress.line)
    except subprocess.TimeoutExpired as exc:  # this host's network or disk: --resume builds it again
        raise BuildError(f"installing {' '.join(pins.packages)} took over {INSTALL_TIMEOUT_S}s") from exc
    if result.returncode != 0:
        line, on_this_host = pip_failure.said(list(pins.packages), result.stdout)
        raise BuildError(line) if on_this_host else EnvSkipped(line)
    problem = venv_libs.fetch(pins.venv_libraries, folder, [*pip, "download", *sources], options.wheelhouse,
                              options.offline, lambda text: note(f"{env.name}: {text}")) if pins.venv_libraries else None
    problem = problem or venv_cuda.link_aliases(folder, pins) or venv_cuda.missing_headers(folder, pins)  # fetched: linkable
    if problem:
        raise EnvSkipped(f"{env.name}: {problem}")
    built = torch_build(folder)
    if built:
        note(f"{env.name}: installed {built}")
    return used
