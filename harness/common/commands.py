"""How to tell a user to run a command: as nox sessions in a checkout, as the installed command
elsewhere (where there is no noxfile.py to run them with)."""
from __future__ import annotations

from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2]
COMMAND = "gpu-cleanup-matrix"


def command(name: str, *args: str) -> str:
    """``nox -s NAME -- ARGS`` in a checkout, ``gpu-cleanup-matrix NAME ARGS`` for an installed tool."""
    if (CHECKOUT / "noxfile.py").is_file():
        return f"nox -s {name}" + (f" -- {' '.join(args)}" if args else "")
    return " ".join((COMMAND, name, *args))
