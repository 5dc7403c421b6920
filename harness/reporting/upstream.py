"""Upstream reports of a technique's answer changing between releases (matrix/upstream.toml), and
which turn of the atlas each explains: a reader of the changes page gets the thread where the
change was reported, fixed or argued about, next to the releases where the atlas measured it."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from packaging.version import InvalidVersion, Version

from harness.common import tomlfile
from harness.common.errors import UsageError
from harness.definitions.config import data_root

KEYS = {"technique", "url", "title", "says", "good", "bad"}


@dataclass(frozen=True)
class Report:
    technique: str
    url: str
    title: str
    says: str
    bad: str
    good: str | None = None

    def explains(self, technique: str, before: str, after: str) -> bool:
        """Whether a turn of ``technique`` from release ``before`` to ``after`` falls where the report
        puts its change."""
        if technique.split("@")[0] != self.technique.split("@")[0] or (
                "@" in self.technique and technique != self.technique):
            return False
        try:
            a, b, bad = Version(before), Version(after), Version(self.bad)
            good = Version(self.good) if self.good else None
        except InvalidVersion:
            return False
        return a < bad and (good < b if good is not None else bad <= b)


def load(path: Path | None = None) -> list[Report]:
    path = path or data_root() / "matrix" / "upstream.toml"
    if not path.is_file():
        return []
    data = tomlfile.read(path, "upstream reports")
    found = []
    for table in data.get("report", []):
        unknown = set(table) - KEYS
        missing = {"technique", "url", "title", "says", "bad"} - set(table)
        if unknown or missing:
            raise UsageError(f"{path.name}: report {table.get('url', '?')}: "
                             + (f"unknown key(s) {sorted(unknown)}" if unknown else f"missing {sorted(missing)}"))
        found.append(Report(**table))
    return found
