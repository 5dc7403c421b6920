"""What a long pip install is doing, said while it runs, and which build of the framework it took.

A ``--with torch==2.4.1`` virtualenv on a host that cannot reach PyTorch's CPU-only index gets
PyPI's torch, the CUDA build, with its nvidia-* wheels: gigabytes, minutes of silence. Each large wheel
pip fetches (or unpacks from a wheelhouse) is said with its size, the time so far every half minute, and at
the end which build was installed (torch's own version file: "the CUDA 12.1 build", "the CPU build").
"""
from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from pathlib import Path

from harness.common.units import human_bytes

FETCHED = re.compile(r"^\s*(Downloading|Processing)\s+(\S+?)(?:\s+\(([\d.]+)\s*([kKMG]?B)\))?\s*$")
UNITS = {"B": 1, "kB": 1000, "KB": 1000, "MB": 1000**2, "GB": 1000**3}
HEARTBEAT_S = 30.0
SAID_FROM = 50 << 20  # a wheel this big or bigger is said as it is fetched (the framework's, the CUDA libraries)


class InstallProgress:
    """Hands pip's lines to ``note`` as short sentences, and says the time every HEARTBEAT_S."""

    def __init__(self, name: str, note: Callable[[str], None], heartbeat_s: float = HEARTBEAT_S) -> None:
        self.name, self.note, self.heartbeat_s = name, note, heartbeat_s
        self.began = time.monotonic()
        self.fetched = 0
        self._done = threading.Event()
        self._beat = threading.Thread(target=self._heartbeat, daemon=True)

    def __enter__(self) -> InstallProgress:
        self._beat.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()

    def line(self, text: str) -> None:
        found = FETCHED.match(text)
        if not found:
            return
        verb, where, number, unit = found.groups()
        size = int(float(number) * UNITS[unit]) if number else _file_size(where)
        self.fetched += size or 0
        if size is not None and size < SAID_FROM:
            return  # small ones count in the total the heartbeat says
        # pip "Processing" a file it already has (a wheelhouse's): unpacked from disk, nothing fetched
        doing = "fetching" if verb == "Downloading" or "://" in where and not where.startswith("file:") else "unpacking"
        self.note(f"{self.name}: {doing} {_release(where.rsplit('/', 1)[-1])}" + (f" ({human_bytes(size)})" if size else ""))

    def _heartbeat(self) -> None:
        while not self._done.wait(self.heartbeat_s):
            fetched = f", {human_bytes(self.fetched)} of wheels so far" if self.fetched else ""
            self.note(f"{self.name}: still installing ({time.monotonic() - self.began:.0f} s{fetched})")


def _release(filename: str) -> str:
    """'torch 2.13.0+cpu' for torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl (the file name otherwise)."""
    from packaging.utils import InvalidWheelFilename, parse_wheel_filename

    try:
        name, version, _, _ = parse_wheel_filename(filename)
    except InvalidWheelFilename:
        return filename
    return f"{name} {version}"


def _file_size(where: str) -> int | None:
    path = Path(where.removeprefix("file://"))
    return path.stat().st_size if path.is_file() else None


def torch_build(site: Path) -> str | None:
    """Which torch build a site holds, from torch/version.py as written at build time (no import):
    'the CUDA 12.1 build', 'the CPU build', or None without torch."""
    version_file = next(iter(site.glob("lib/python*/site-packages/torch/version.py")), None)
    if version_file is None:
        return None
    text = version_file.read_text(encoding="utf-8", errors="replace")
    cuda = re.search(r"^cuda\s*(?::\s*\S+\s*)?=\s*['\"]([^'\"]+)['\"]", text, re.MULTILINE)
    version = re.search(r"^__version__\s*=\s*['\"]([^'\"]+)['\"]", text, re.MULTILINE)
    build = f"the CUDA {cuda.group(1)} build" if cuda else "the CPU build"
    return f"torch {version.group(1) if version else '?'}, {build}"
