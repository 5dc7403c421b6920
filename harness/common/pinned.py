"""An environment's name read back as its pins: what a run of `--with PKG==VER[,PKG==VER...]` was called."""
from __future__ import annotations

import re

from packaging.requirements import InvalidRequirement, Requirement


def exact(name: str) -> list[tuple[Requirement, str]]:
    """Each exact pin in an environment's name, as the runs kept it ("jax[cuda12]==0.4.35,numpy==2.1"), with its
    release; what is no pin is passed over (a name read back, not a command line: nothing to refuse)."""
    found = []
    for part in re.split(r",(?![^\[]*\])", name):  # not the commas between extras: jax[cuda12,cudnn]==...
        try:
            req = Requirement(part)
        except InvalidRequirement:
            continue
        found += [(req, spec.version) for spec in req.specifier if spec.operator == "=="][:1]
    return found
