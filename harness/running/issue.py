"""A pasted bug report (``repro issue.md``, or ``-`` for standard input) made into a run: the code to
run, written to a file, and the reporter's releases of each framework it imports, as ``--with`` pins.

The releases come from what the report states (issue_versions.py); a release given as a minor
(``2.15``) is its last patch on the package index; a release the index does not have is refused in
one line. Today's release is the tool's own environment of each framework, run beside them, so one
run answers both "does it still happen?" and "did it happen on the reporter's?".
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from harness import frameworks
from harness.common.errors import HarnessError, UsageError
from harness.running import issue_text, issue_versions, script_imports

if TYPE_CHECKING:
    from packaging.version import Version

    from harness.environments.config import EnvDef

SUFFIXES = (".md", ".markdown", ".txt")
MAX_RELEASES = 4  # per framework: more than this stated, the rest are named, not run


@dataclass
class IssuePlan:
    script: Path  # the chosen block, written out
    block: issue_text.Block
    blocks: int  # how many code blocks the report has
    stated: list[issue_versions.Stated]
    releases: dict[str, list[str]] = field(default_factory=dict)  # framework -> the reporter's releases to run
    imported: list[str] = field(default_factory=list)  # the frameworks the code imports
    notes: list[str] = field(default_factory=list)  # stated but not run, and why

    @property
    def pins(self) -> list[str]:
        return [f"{package}=={version}" for package, versions in self.releases.items() for version in versions]


def is_report(path: Path | None) -> bool:
    return path is not None and (str(path) == "-" or path.suffix.lower() in SUFFIXES)


def read(path: Path) -> tuple[str, str]:
    """(the report's text, its name): a file, or standard input for ``-``."""
    if str(path) == "-":
        return sys.stdin.read(), "pasted"
    if not path.is_file():
        raise UsageError(f"report not found: {path} (give the issue's text as a .md file, or - to read it from stdin)")
    return path.read_text(encoding="utf-8", errors="replace"), path.stem


def _release(item: issue_versions.Stated, known: dict[Version, object] | None, report: str) -> str:
    """The exact release to pin: the local part (+cu121) dropped, a minor made its last patch."""
    from packaging.version import InvalidVersion, Version
    try:
        version = Version(item.version.split("+")[0].replace("-rc", "rc"))
    except InvalidVersion as exc:
        raise UsageError(f"{report}:{item.line}: {item.version!r} is not a release ({item.text!r})") from exc
    if known is None:  # no index answers: an exact release is pinned as stated, the build says if it is not there
        if len(version.release) < 3:
            raise UsageError(f"{report}:{item.line}: {item.package} {item.version} names no exact release and no "
                             f"package index answers here to find its last patch: give --with {item.package}==VERSION")
        return str(version)
    if len(version.release) < 3:
        patches = sorted(v for v in known if v.release[:2] == version.release[:2] and not v.is_prerelease)
        if patches:
            return str(patches[-1])
    if version not in known:
        near = sorted(known)[-1] if known else None
        raise UsageError(f"{report}:{item.line}: {item.package} {item.version} is not a release of {item.package} "
                         f"(stated as {item.text!r}; the newest is {near}): correct it with --with {item.package}==VERSION")
    return str(version)


def _index_releases(package: str, index_url: str) -> dict[Version, object] | None:
    from harness.environments import pkgindex

    try:
        return dict(pkgindex.releases(package, index_url))
    except HarnessError:
        return None


def plan(path: Path, folder: Path, block: int | None = None, index_url: str | None = None) -> IssuePlan:
    """Read the report at ``path`` and write its code to ``folder``: what to run, and on which releases."""
    from harness.environments import config

    text, name = read(path)
    found = issue_text.blocks(text)
    chosen = issue_text.choose(found, block, path.name)
    source = chosen.python or ""
    report_dir = path.parent if str(path) != "-" else Path.cwd()
    missing = issue_text.missing_data(chosen, report_dir, path.name)
    if missing:
        raise UsageError(missing)
    needs = [f for m in script_imports.imported_modules(source) for f in script_imports.frameworks_of(m.split(".")[0], None)]
    imported = [f for f in frameworks.names() if f in needs]
    spans = {b.number: {b.first_line - 1 + i for i in range(-1, len(b.source.splitlines()) + 1)} for b in found}
    code_lines = set().union(*(spans[b.number] for b in found if b.python))
    stated = issue_versions.stated(text.splitlines(), code_lines, set().union(*spans.values()),
                                   imported[0] if len(imported) == 1 else None)
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / f"{name}_block{chosen.number}.py"
    script.write_text(source, encoding="utf-8")
    result = IssuePlan(script, chosen, len(found), stated, imported=imported)
    index = index_url or config.DEFAULT_INDEX
    for framework in imported:
        mine = [s for s in stated if s.package == framework]
        mine.sort(key=lambda s: {"bad": 0, "good": 1, "": 2}[s.role])
        if not mine:
            continue
        known = _index_releases(framework, index)
        releases: list[str] = []
        for item in mine:
            release = _release(item, known, path.name)
            if release not in releases:
                releases.append(release)
        result.releases[framework] = releases[:MAX_RELEASES]
        if len(releases) > MAX_RELEASES:
            result.notes.append(f"{framework}: {', '.join(releases[MAX_RELEASES:])} stated too, not run (give them "
                                "with --with to run them)")
    return result


def todays(envs: list[EnvDef], imported: list[str]) -> list[str]:
    """Today's environment of each framework the code imports: among ``envs`` (those that fit the
    code), the one whose pins hold its newest release (tf-current, not tf1.8 or tf2.7)."""
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.version import InvalidVersion, Version

    def newest(env: EnvDef, framework: str) -> Version | None:
        found = []
        for variant in env.variants.values():
            for text in variant.packages:
                try:
                    req = Requirement(text)
                    kind = frameworks.of_distribution(str(req.name).lower())
                    found += [Version(s.version) for s in req.specifier if s.operator == "==" and kind
                              and kind.name == framework]
                except (InvalidRequirement, InvalidVersion):
                    continue
        return max(found) if found else None
    chosen: list[str] = []
    for framework in imported:
        ranked = [(version, env.name) for env in envs if (version := newest(env, framework)) is not None]
        if ranked:
            chosen.append(max(ranked)[1])
    return list(dict.fromkeys(chosen)) or [env.name for env in envs]
