"""The reference runs the atlas is made of, each read once: its records re-judged, and what the base its
images were built on was where it stood in for the one they name (``stand-in.txt``)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from harness.judgement.cell import read_judged
from harness.model.record import CellRecord


@dataclass(frozen=True)
class Run:
    """A reference run, read once: its folder, its name under the references, its records re-judged."""

    path: Path
    name: str
    records: list[CellRecord]
    broken: list[tuple[Path, str]]
    stand_in: str = ""  # what its base image was, where it was not the one its image names (STAND_IN)
    stand_in_all: bool = False  # the run's own STAND_IN and no container in it: its processes ran on that base


# Beside a run or in a folder above it: what the base its images were built on was, where it stood in for the
# one the image names (no registry reachable). It is said of the cells that ran in a container, and of every
# cell of a run of host processes whose own folder holds it (processes in a chroot of such an image).
STAND_IN = "stand-in.txt"


def run_folders(root: Path) -> list[Path]:
    """Every run folder under ``root``: one with a manifest and records."""
    return sorted(p.parent for p in root.rglob("manifest.json") if any(p.parent.glob("*/*.json*")))


def reference_runs(root: Path) -> list[Run]:
    """Every run folder under ``root`` (run_folders), its records read."""
    found = []
    for path in run_folders(root):
        records, broken = read_judged(path)
        said, own = _stand_in(path, root)
        containers = any((record.get("env") or {}).get("backend") == "docker" for record in records)
        found.append(Run(path, str(path.relative_to(root)), records, broken, said, own and not containers))
    return found


def _stand_in(path: Path, root: Path) -> tuple[str, bool]:
    """The nearest STAND_IN from the run's folder up to the references' root, as one line, and whether it is
    the run's own."""
    for folder in (path, *path.parents):
        if (folder / STAND_IN).is_file():
            return " ".join((folder / STAND_IN).read_text(encoding="utf-8").split()), folder == path
        if folder == root:
            break
    return "", False
