"""`--with PKG==VER[,PKG==VER...]`: exact pins, read the one way every command reads them."""
from __future__ import annotations

from packaging.requirements import InvalidRequirement, Requirement

from harness.common.errors import UsageError


def _requirement(part: str, flag: str, given: str, fix: str) -> Requirement:
    """``part`` of what ``flag`` was given, as a requirement, or one line naming it and the fix."""
    try:
        return Requirement(part)
    except InvalidRequirement as exc:
        reason = str(exc).splitlines()[0]
        raise UsageError(f"{flag} {given!r}: {part!r} is not a requirement ({reason}); {fix}") from exc


def parse(text: str) -> list[Requirement]:
    """``pkg==ver[,pkg==ver...]``: exact pins only (a range would not name what ran)."""
    reqs = []
    for part in (p.strip() for p in text.split(",")):
        req = _requirement(part, "--with", text, "write PKG==VERSION")
        specs = list(req.specifier)
        if len(specs) != 1 or specs[0].operator != "==" or "*" in specs[0].version:
            raise UsageError(f"--with {text!r}: pin {req.name} to one release, like {req.name}==1.2.3")
        reqs.append(req)
    return reqs


def packages(texts: list[str]) -> list[Requirement]:
    """``--pip PKG[==VER]``: a package by name, or pinned to one release."""
    reqs = []
    for text in texts:
        req = _requirement(text, "--pip", text, "write PKG or PKG==VERSION")
        specs = list(req.specifier)
        if specs and (len(specs) != 1 or specs[0].operator != "=="):
            raise UsageError(f"--pip {text!r}: give {req.name} alone (pip's choice) or one release, like {req.name}==1.2.3")
        reqs.append(req)
    return reqs
