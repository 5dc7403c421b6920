"""What `repro` runs: a script with its arguments, or the command that launches it.

``repro train.py -- --lr 1e-3`` runs the script with its arguments; ``repro -- python train.py
--lr 1e-3`` is the same. ``repro -- torchrun --nproc_per_node=2 train.py --epochs 1`` (or
``accelerate launch``, ``python -m torch.distributed.run``, any launcher that runs ``python
SCRIPT ARGS`` per process) runs the launcher as typed, in the environment, with every process it
starts for the script instrumented and labelled by its rank.
"""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from harness.common.errors import UsageError

PYTHON, SCRIPT = "{python}", "{script}"  # what the agent puts in: the environment's Python, the rank shim + script
_PYTHON_NAME = re.compile(r"python[0-9.]*$")
_HARMLESS_FLAGS = {"-u", "-B"}  # output buffering, bytecode files: the environment's Python runs the script either way
# Modules that start ``python SCRIPT ARGS`` per process (``python -m MODULE ... SCRIPT``).
LAUNCHER_MODULES = ("torch.distributed.run", "torch.distributed.launch", "accelerate.commands.launch",
                    "deepspeed.launcher.runner")


@dataclass(frozen=True)
class Launch:
    script: Path
    argv: tuple[str, ...] = ()  # the script's own arguments, when it runs itself
    launch: tuple[str, ...] = ()  # the launcher's argv, with PYTHON and SCRIPT in place
    command: str = ""  # as the user gave it


def _script(arg: str) -> Path:
    path = Path(arg)
    if not path.is_file():
        raise UsageError(f"script not found: {arg} (the command's script must be a file here)")
    return path


def _after_python(rest: list[str], typed: str) -> Launch:
    """``python [-u] SCRIPT ARGS`` or ``python -m LAUNCHER ... SCRIPT ARGS``."""
    i = 1
    while i < len(rest) and rest[i].startswith("-"):
        if rest[i] == "-m" and i + 1 < len(rest):
            if rest[i + 1] not in LAUNCHER_MODULES:
                raise UsageError(f"`{typed}`: a module run with -m ({rest[i + 1]}) is not instrumented yet; give its "
                                 f"file (`repro path/to/{rest[i + 1].split('.')[-1]}.py -- ARGS`) or a launcher's "
                                 f"command ({', '.join(LAUNCHER_MODULES[:1] + ('torchrun',))})")
            return _launcher(rest, typed, python_module=rest[i + 1])
        if rest[i] not in _HARMLESS_FLAGS:
            raise UsageError(f"`{typed}`: the interpreter option {rest[i]} is not passed on; run the script "
                             "(`repro SCRIPT -- ARGS`) or a launcher (`repro -- torchrun ... SCRIPT ARGS`)")
        i += 1
    if i >= len(rest):
        raise UsageError(f"`{typed}`: no script to run; name it (`repro -- python train.py --lr 1e-3`)")
    return Launch(_script(rest[i]), tuple(rest[i + 1:]), (), typed)


def _launcher(rest: list[str], typed: str, python_module: str | None = None) -> Launch:
    """A launcher: the first ``.py`` file among its arguments is the script each process runs."""
    for j, arg in enumerate(rest[1:], start=1):
        if arg.endswith(".py") and Path(arg).is_file():
            head = [PYTHON, *rest[1:j]] if python_module else rest[:j]
            return Launch(_script(arg), (), (*head, SCRIPT, *rest[j + 1:]), typed)
    what = f"python -m {python_module}" if python_module else rest[0]
    raise UsageError(f"`{typed}`: found no script (a .py file here) among {what}'s arguments; repro instruments "
                     "the script each process runs (`repro -- torchrun --nproc_per_node=2 train.py`)")


def parse(script: Path | None, rest: list[str]) -> Launch:
    """The script and how it is started, from `repro [SCRIPT] [-- ARGS | -- COMMAND]`."""
    if script is not None:
        return Launch(script, tuple(rest), (), shlex.join(["python", str(script), *rest]))
    if not rest:
        raise UsageError("repro needs the script (`repro train.py`), or the command that runs it after -- "
                         "(`repro -- torchrun --nproc_per_node=2 train.py`)")
    typed = shlex.join(rest)
    if _PYTHON_NAME.match(Path(rest[0]).name):
        return _after_python(rest, typed)
    if rest[0].endswith(".py"):
        return Launch(_script(rest[0]), tuple(rest[1:]), (), typed)
    return _launcher(rest, typed)
