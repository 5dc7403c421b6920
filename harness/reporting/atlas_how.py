"""How a cell's release ran where it was not as a user installs it, in a few words the grid, the release and
technique pages, the claims page and "Cite this" all show: a lockstep companion at another release (JAX 0.4.35's
CUDA extra pins jaxlib 0.4.34), packages its environment added (``--with nvidia-cuda-nvcc-cu12==12.6.85``, a bug
report's own imports), and a base image rebuilt in place of the framework's own (TF 1.8's, for want of a registry).
A stand-in for a CUDA base is not said here: CUDA then came from the release's pip wheels, as for a user who
installs it with pip; the cell's page gives every stand-in in full."""
from __future__ import annotations

import re

from harness import frameworks
from harness.common import pinned
from harness.model.record import CellRecord

REPLACED = re.compile(r"a stand-in for (\S+?)[:,;]?\s")  # stand-in.txt's first words name the image it replaced
CUDA_BASE = ("nvidia/cuda", "the")  # "a stand-in for nvidia/cuda:...", "a stand-in for the nvidia/cuda base ..."


def ran_with(record: CellRecord, framework: str, release: str, stand_in: str) -> str:
    """'' where the release ran as its own install would; else what differed, joined by '; '."""
    said = []
    found = frameworks.named(framework)
    seen = (record.get("facts") or {}).get("frameworks") or {}
    if found is not None and found.released_with and (companion := str(seen.get(found.released_with) or "")):
        if _public(companion) != _public(release):
            said.append(f"{found.released_with} {companion} (not {_public(release)})")
    added = [f"{req.name} {version}" for req, version in pinned.exact(str((record.get("env") or {}).get("name") or ""))
             if found is None or not found.installs(req.name)]
    said += [f"{', '.join(added)} added"] if added else []
    if (replaced := REPLACED.match(stand_in + " ")) and not replaced.group(1).startswith(CUDA_BASE):
        said.append(f"a stand-in for {replaced.group(1)} as its base")
    return "; ".join(said)


def _public(version: str) -> str:
    """A release without its local part (2.7.1+cu126: 2.7.1)."""
    return version.split("+", 1)[0]
