"""The frameworks this tool measures: one module each (tensorflow.py, torch.py, jax.py, cupy.py).

Everything the host knows of a framework is declared in its module, once: its import name, the
pip distributions that install it, the API families of its scenarios, the libraries that load it,
the companion pins its old releases need, how its releases are built for a GPU (gpu_builds), the
environment variables that change its memory, and the imports whose versions are recorded with it.
Every other module asks here, so adding a framework is adding a module (and its agent view, see
agent/framework_view.py); ``registered`` adds one for the length of a test. Another package adds one
without touching this tool: a ``Framework`` (or a module with ``FRAMEWORK``) named in the entry-point group
``gpu_cleanup_matrix.frameworks`` of its metadata (pyproject.toml:
``[project.entry-points."gpu_cleanup_matrix.frameworks"] myfw = "myfw_matrix:FRAMEWORK"``), read with the
standard library's importlib.metadata when the registry is first imported, where a distribution on sys.path names
that group at all (a look at their entry_points.txt first: importlib.metadata's own import is 40 ms of every start).
"""
from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from harness.frameworks import cupy, jax, tensorflow, torch
from harness.frameworks.framework import Framework

ENTRY_POINTS = "gpu_cleanup_matrix.frameworks"  # where another package declares a framework of its own

# Variables are named exactly: only names the frameworks and the CUDA runtime read (a prefix
# would take Terraform's TF_CLI_CONFIG_FILE for TensorFlow's). The CUDA runtime's own change
# every framework's memory (docs.nvidia.com/cuda, CUDA environment variables).
RUNTIME_VARIABLES = (
    "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "CUDA_LAUNCH_BLOCKING", "CUDA_MODULE_LOADING", "CUDA_CACHE_DISABLE",
    "CUDA_CACHE_MAXSIZE", "CUDA_CACHE_PATH", "CUDA_DEVICE_MAX_CONNECTIONS", "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE",
    "NVIDIA_TF32_OVERRIDE",
)
ANY_FAMILY = "any"  # a scenario of plain Python, run in every environment
BUILT_IN: tuple[Framework, ...] = tuple(module.FRAMEWORK for module in (tensorflow, torch, jax, cupy))


def installed() -> tuple[list[Framework], list[str]]:
    """The frameworks other installed packages declare (ENTRY_POINTS), and a line for each entry left out: one
    that fails to import or is no Framework, with the fix. Never an exception: the registry is read when the
    command line is built, and a broken plugin must not stop the tool (the CLI says each line, doctor too)."""
    if not _declared():
        return [], []
    from importlib.metadata import entry_points

    found: list[Framework] = []
    left_out: list[str] = []
    for point in entry_points(group=ENTRY_POINTS):
        where = f"{ENTRY_POINTS} entry {point.name} = {point.value}"
        try:
            value = point.load()
        except Exception as exc:  # a plugin's own import error: its name, the package to fix or remove
            left_out.append(f"{where} left out: it failed to load ({type(exc).__name__}: {exc}); fix or uninstall "
                            "the package that declares it")
            continue
        framework = getattr(value, "FRAMEWORK", value)
        if not isinstance(framework, Framework):
            left_out.append(f"{where} left out: a {type(framework).__name__}, not a harness.frameworks.framework."
                            "Framework (or a module holding one as FRAMEWORK)")
        elif any(framework.name == known.name for known in (*BUILT_IN, *found)):
            left_out.append(f"{where} left out: {framework.name} is already known (a built-in name stays the tool's)")
        else:
            found.append(framework)
    return found, left_out


def _declared() -> bool:
    """Whether a distribution on sys.path names ENTRY_POINTS in its entry_points.txt (dist-info or egg-info)."""
    header = f"[{ENTRY_POINTS}]"
    for folder in dict.fromkeys(sys.path):
        try:
            entries = list(os.scandir(folder or "."))
        except OSError:  # a zip, a folder gone
            continue
        for entry in entries:
            if entry.name.endswith((".dist-info", ".egg-info")):
                try:
                    with open(os.path.join(entry.path, "entry_points.txt"), encoding="utf-8", errors="replace") as text:
                        if header in text.read():
                            return True
                except OSError:
                    continue
    return False


_PLUGINS, LEFT_OUT = installed()
_REGISTERED: list[Framework] = [*BUILT_IN, *_PLUGINS]


def all_frameworks() -> tuple[Framework, ...]:
    """Every framework, in the order outputs list them."""
    return tuple(_REGISTERED)


def names() -> tuple[str, ...]:
    return tuple(f.name for f in _REGISTERED)


def named(name: str) -> Framework | None:
    return next((f for f in _REGISTERED if f.name == name), None)


def of_family(family: str) -> Framework | None:
    return next((f for f in _REGISTERED if family in f.families), None)


def of_distribution(distribution: str) -> Framework | None:
    return next((f for f in _REGISTERED if f.installs(distribution)), None)


def family_names() -> list[str]:
    """Every API family a scenario or an environment may name, ``any`` last."""
    return [family for f in _REGISTERED for family in f.families] + [ANY_FAMILY]


def families_of(frameworks: dict[str, str]) -> tuple[str, ...]:
    """API families an environment runs, from the frameworks it imports (name -> version)."""
    return tuple(family for f in _REGISTERED if f.name in frameworks for family in f.families_for(frameworks[f.name]))


def gpu_needed(families: list[str] | tuple[str, ...]) -> str:
    """Why an environment of these API families cannot run without an NVIDIA GPU (every framework of them needs
    one), or ''."""
    found = [f for f in map(of_family, families) if f is not None]
    return found[0].needs_gpu if found and all(f.needs_gpu for f in found) else ""


def families_needing(frameworks: tuple[str, ...]) -> tuple[str, ...]:
    """API families of the frameworks a script needs (which release it needs is for the matrix to show)."""
    return tuple(family for f in _REGISTERED if f.name in frameworks for family in f.families)


def loaded_by(library: str) -> tuple[str, ...]:
    """The frameworks an import name loads: itself, or those a library is known to load."""
    return tuple(f.name for f in _REGISTERED if library == f.name or library in f.libraries)


def recorded_imports() -> tuple[str, ...]:
    """Import names a cell records the versions of and counts as a framework's import: each
    framework and what comes with it (the agent adds numpy to the versions, never to the imports)."""
    return tuple(dict.fromkeys(n for f in _REGISTERED for n in (f.name, *f.reported_with)))


def memory_variables() -> tuple[str, ...]:
    """Environment variables recorded with each cell: the CUDA runtime's and every framework's."""
    return RUNTIME_VARIABLES + tuple(v for f in _REGISTERED for v in f.variables)


def listed() -> str:
    """``tensorflow, torch, jax, cupy``: for sentences that name them all."""
    return ", ".join(names())


@contextmanager
def registered(framework: Framework) -> Iterator[Framework]:
    """``framework`` known to every module while the block runs (a test's fake framework)."""
    _REGISTERED.append(framework)
    try:
        yield framework
    finally:
        _REGISTERED.remove(framework)
