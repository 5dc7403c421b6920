"""IPython for a notebook's environment, where the environment has none of its own.

A notebook runs in a real IPython shell (agent/notebook.py), but an environment is made from the
framework's pins and a container has no network. So the host installs IPython once per Python
(pinned: the last release each Python runs) into a folder of its cache with ``pip install
--target`` (tool_sites.py), and the cell mounts it read-only; the agent appends it to ``sys.path``
only when the environment cannot import IPython itself.
"""
from __future__ import annotations

from pathlib import Path

from harness.common.errors import BuildError
from harness.environments import tool_sites
from harness.environments.images import BuildOptions

# The newest IPython each Python runs (Requires-Python of its releases); newer Pythons take the last row.
PINS = {"3.5": "7.9.0", "3.6": "7.16.3", "3.7": "7.34.0", "3.8": "8.12.3", "3.9": "8.18.1", "3.10": "8.37.0",
        "3.11": "9.18.1"}


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


def ensure(python: str, build: BuildOptions) -> tuple[Path, bool]:
    """The folder of IPython for ``python`` (``3.11``), made when missing; and whether it was there."""
    pin = pin_for(python)
    folder = tool_sites.cache_root() / "ipython" / f"py{python}-{pin.split('==')[1]}"
    there = tool_sites.ensure(folder, "IPython/__init__.py", pin, build, f"a notebook on Python {python}", python=python)
    return folder, there
