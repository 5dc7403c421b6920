"""What a virtualenv build interrupted by Ctrl-C or a kill leaves behind, removed at the next build of it.

A build happens in ``.NAME.HASH-PID`` beside the link ``NAME`` and is swapped in when it works (venvs.py); one
whose process is gone and that no link points at is a leftover (914 MiB of a torch build). Only the entries of
the one virtualenv whose lock the caller holds are touched, so another run building another one is never raced.
"""
from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

LEFTOVER = re.compile(r"^\.(?P<name>.+)\.(?:[0-9a-f]+|old|link)-(?P<pid>\d+)$")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True


def remove(root: Path, folder: Path) -> list[Path]:
    """The leftovers of ``folder``'s builds in ``root`` that were removed (its lock held by the caller)."""
    current = folder.resolve() if folder.is_symlink() else None
    removed = []
    for entry in root.iterdir():
        match = LEFTOVER.match(entry.name)
        if (not match or match.group("name") != folder.name or _alive(int(match.group("pid")))
                or (current is not None and entry.resolve() == current)):
            continue
        if entry.is_symlink() or entry.is_file():
            entry.unlink(missing_ok=True)
        else:
            shutil.rmtree(entry, ignore_errors=True)
        removed.append(entry)
    return removed
