"""The scenario folder a container mounts: one its non-root user can read."""
from __future__ import annotations

import shutil
import stat
from pathlib import Path


def _others_can(path: Path, bits: int) -> bool:
    return (path.stat().st_mode & bits) == bits


def readable_scenario_dir(path: Path, staging: Path, companions: tuple[str, ...] = ()) -> Path:
    """The folder to mount for ``path``: its own, or, when the container's user could not read it
    (a ``mktemp -d`` folder or a home of mode 0700), a world-readable copy of the file (and of the
    script's own modules it imports) in the cell's own folder, which is removed with the cell.
    Without this the script's PermissionError would pass for the script's own failure."""
    folder = path.parent
    if _others_can(folder, stat.S_IROTH | stat.S_IXOTH) and _others_can(path, stat.S_IROTH):
        return folder
    staged = staging / "scenario"
    staged.mkdir(mode=0o755, exist_ok=True)
    for name in (path.name, *companions):
        target = staged / name
        target.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
        shutil.copyfile(folder / name, target)
        target.chmod(0o644)
    return staged
