"""`--with PKG==VER[,PKG==VER...]`: exact pins, read the one way every command reads them."""
from __future__ import annotations

from packaging.requirements import InvalidRequirement, Requirement

from harness.common.errors import UsageError


def parse(text: str) -> list[Requirement]:
    """``pkg==ver[,pkg==ver...]``: exact pins only (a range would not name what ran)."""
    reqs = []
    for part in (p.strip() for p in text.split(",")):
        try:
            req = Requirement(part)
        except InvalidRequirement as exc:
            reason = str(exc).splitlines()[0]
            raise UsageError(f"--with {text!r}: {part!r} is not a requirement ({reason}); write PKG==VERSION") from exc
        specs = list(req.specifier)
        if len(specs) != 1 or specs[0].operator != "==" or "*" in specs[0].version:
            raise UsageError(f"--with {text!r}: pin {req.name} to one release, like {req.name}==1.2.3")
        reqs.append(req)
    return reqs


def packages(texts: list[str]) -> list[Requirement]:
    """``--pip PKG[==VER]``: a package by name, or pinned to one release."""
    reqs = []
    for text in texts:
        try:
            req = Requirement(text)
        except InvalidRequirement as exc:
            reason = str(exc).splitlines()[0]
            raise UsageError(f"--pip {text!r} is not a requirement ({reason}); write PKG or PKG==VERSION") from exc
        specs = list(req.specifier)
        if specs and (len(specs) != 1 or specs[0].operator != "=="):
            raise UsageError(f"--pip {text!r}: give {req.name} alone (pip's choice) or one release, like {req.name}==1.2.3")
        reqs.append(req)
    return reqs
