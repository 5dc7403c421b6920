"""Wheels from what a machine already has installed, for image builds where no index is reachable.

    python3 repack_installed.py OUT REQUIREMENT...   (e.g. 'cupy-cuda13x[ctk]' 'jax[cuda13]' pip)

Each requirement and everything it needs (its extras and markers evaluated here) is looked up
among this interpreter's installed distributions and zipped back into a wheel in OUT: the files
its RECORD lists, its own dist-info, named by the tags in its WHEEL file. Prints one exact pin
per distribution (NAME==VERSION), so an environment can pin precisely what the machine holds.
GPU machine set-up (a lent machine has the CUDA wheels installed and no network), not product.
"""
from __future__ import annotations

import sys
import zipfile
from importlib import metadata
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name


def closure(wanted: list[str]) -> dict[str, metadata.Distribution]:
    """Every installed distribution ``wanted`` needs, extras included, each (name, extras) once."""
    found: dict[str, metadata.Distribution] = {}
    done: set[tuple[str, frozenset[str]]] = set()
    todo = [Requirement(text) for text in wanted]
    while todo:
        req = todo.pop()
        key = (canonicalize_name(req.name), frozenset(req.extras))
        if key in done:
            continue
        done.add(key)
        try:
            dist = metadata.distribution(req.name)
        except metadata.PackageNotFoundError:
            print(f"not installed here, left out: {req}", file=sys.stderr)
            continue
        found[key[0]] = dist
        for text in dist.requires or []:
            need = Requirement(text)
            if any(need.marker is None or need.marker.evaluate({**default_environment(), "extra": extra})
                   for extra in ["", *sorted(req.extras)]):
                todo.append(need)
    return found


def repack(dist: metadata.Distribution, out: Path) -> Path:
    files = [f for f in dist.files or [] if not str(f).startswith("..") and "__pycache__" not in str(f)]
    info = next(f for f in files if str(f).endswith(".dist-info/WHEEL"))
    tags = [line.split(":", 1)[1].strip() for line in Path(dist.locate_file(info)).read_text().splitlines()
            if line.startswith("Tag:")]
    py, abi, plat = (".".join(sorted({t.split("-")[i] for t in tags})) for i in range(3))
    name = f"{dist.metadata['Name'].replace('-', '_')}-{dist.version}-{py}-{abi}-{plat}.whl"
    with zipfile.ZipFile(out / name, "w", zipfile.ZIP_STORED) as wheel:  # stored: the CUDA libraries barely compress
        for entry in files:
            path = Path(dist.locate_file(entry))
            if path.is_file():
                wheel.write(path, str(entry))
    return out / name


def main(argv: list[str]) -> int:
    out = Path(argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for _, dist in sorted(closure(argv[2:]).items()):
        made = repack(dist, out)
        print(f"{dist.metadata['Name']}=={dist.version}  {made.name} {made.stat().st_size >> 20} MiB", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
