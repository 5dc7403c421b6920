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

from packaging.utils import canonicalize_name

from harness import frameworks
from harness.common.errors import HarnessError, UsageError
from harness.running import issue_prose, issue_replay, issue_text, issue_versions, report_packages, script_imports

if TYPE_CHECKING:
    from packaging.version import Version

    from harness.definitions.config import EnvDef

MAX_RELEASES = 4  # per framework: more than this stated, the rest are named, not run


@dataclass(frozen=True)
class ReportedRate:
    """The growth a report says it saw, in its words: what a release's own growth is held against."""
    amount: float  # bytes per ``per``
    per: str  # call, iteration, step, epoch...
    words: str  # as written: "190Mb per call"
    line: int


@dataclass
class IssuePlan:
    script: Path  # the chosen block, written out
    block: issue_text.Block
    blocks: int  # how many code blocks the report has
    stated: list[issue_versions.Stated]
    releases: dict[str, list[str]] = field(default_factory=dict)  # framework -> the reporter's releases to run
    imported: list[str] = field(default_factory=list)  # the frameworks the code imports
    notes: list[str] = field(default_factory=list)  # stated but not run, and why
    python: issue_versions.Stated | None = None  # the Python the report ran on, where it says
    packages: list[str] = field(default_factory=list)  # the code's other imports, as pip installs them (psutil==5.9.4)
    # a release's companions stated beside it, on its line ("jax==0.2.9, jaxlib==0.1.59"): pinned with it
    beside: dict[str, list[str]] = field(default_factory=dict)
    replay: issue_replay.Replay = field(default_factory=lambda: issue_replay.Replay("script", ""))
    subject: str | None = None  # no framework imported: the package the report is about (numpy), run on its releases
    today: str = ""  # and today's release of it, as a pin ("numpy==2.3.4")
    rate: ReportedRate | None = None  # the report's own figure for its growth ("190Mb per call"), where it gives one

    @property
    def pins(self) -> list[str]:
        """A ``--with`` per reporter's release, with the releases the report states of its other imports."""
        stated = [p for p in self.packages if "==" in p]
        mine = [",".join([f"{package}=={version}", *self.beside.get(f"{package}=={version}", []), *stated])
                for package, versions in self.releases.items() for version in versions]
        return mine + ([",".join([self.today, *stated])] if self.today and self.today not in mine else [])

    @property
    def unpinned(self) -> list[str]:
        """The other imports by name, for today's environments (``--pip``): pip's release for their Python."""
        return [p.split("==")[0] for p in self.packages]


def read(path: Path) -> tuple[str, str]:
    """(the report's text, its name): a file, or standard input for ``-``."""
    if str(path) == "-":
        return sys.stdin.read(), "pasted"
    if not path.is_file():
        raise UsageError(f"report not found: {path} (give the issue's text as a .md file, or - to read it from stdin)")
    return path.read_text(encoding="utf-8", errors="replace"), path.stem


def _release(item: issue_versions.Stated, known: dict[Version, object] | None, report: str) -> tuple[str | None, str]:
    """(the exact release to pin, a note when it is not the one stated): the local part (+cu121) dropped, a
    minor made its last patch, a release the index lacks (a nightly, a yanked one) its nearest of the series;
    None, with the note, for a number no release is near (a typo: "torch==0.13.0"), which runs nothing."""
    from packaging.version import InvalidVersion, Version
    try:
        version = Version(item.version.split("+")[0].replace("-rc", "rc"))
    except InvalidVersion as exc:
        raise UsageError(f"{report}:{item.line}: {item.version!r} is not a release ({item.text!r})") from exc
    if known is None:  # no index answers: an exact release is pinned as stated, the build says if it is not there
        if len(version.release) < 3:
            raise UsageError(f"{report}:{item.line}: {item.package} {item.version} names no exact release and no "
                             f"package index answers here to find its last patch: give --with {item.package}==VERSION")
        return str(version), ""
    if len(version.release) < 3:
        patches = sorted(v for v in known if v.release[:2] == version.release[:2] and not v.is_prerelease)
        if patches:
            return str(patches[-1]), ""
    if version in known:
        return str(version), ""
    near = nearest(version, list(known))
    if near is None:
        series = sorted(v for v in known if v.major == version.major and not v.is_prerelease)
        ends = (f"the index's {version.major}.x releases of it end at {series[-1]}" if series
                else f"the index has no {version.major}.x release of it")
        return None, (f"{item.package} {item.version} (line {item.line}) is no release of {item.package} ({ends}): "
                      f"not run; --with {item.package}==VERSION runs the one meant")
    return str(near), (f"{item.package} {item.version} (line {item.line}) is not on the package index: its nearest "
                       f"release {near} runs instead (--with {item.package}==VERSION runs another)")


def nearest(version: Version, known: list[Version]) -> Version | None:
    """The release nearest ``version`` of its major: its minor's last patch at or below it, else the newest
    release below it, else the oldest above; None where the major has none, or where ``version`` is past the
    major's newest by more than one minor (a typo, not a missing release; a nightly of the next minor is near)."""
    final = sorted(v for v in known if v.major == version.major and not v.is_prerelease and not v.is_devrelease)
    if not final or version.minor > final[-1].minor + 1:
        return None
    below = [v for v in final if v < version]
    if not below:
        return final[0]
    same = [v for v in below if v.release[:2] == version.release[:2]]
    return (same or below)[-1]


def _index_releases(package: str, index_url: str) -> dict[Version, object] | None:
    from harness.environments import pkgindex

    try:
        return dict(pkgindex.releases(package, index_url))
    except HarnessError:
        return None


def plan(path: Path, folder: Path, block: int | None = None, index_url: str | None = None,
         replay_as: str | None = None) -> IssuePlan:
    """Read the report at ``path`` and write its code to ``folder``: what to run, how (``replay_as``: --as
    script|ipython, else as the report says it ran), and on which releases."""
    from harness.definitions import config

    text, name = read(path)
    found = issue_text.blocks(text)
    chosen = issue_text.choose(found, block, path.name)
    source = chosen.python or ""
    report_dir = path.parent if str(path) != "-" else Path.cwd()
    missing = issue_text.missing_data(chosen, report_dir, path.name)
    if missing:
        raise UsageError(missing)
    modules = script_imports.imported_modules(source)
    needs = [f for m in modules for f in script_imports.frameworks_of(m.split(".")[0], None)]
    imported = [f for f in frameworks.names() if f in needs]
    spans = {b.number: {b.first_line - 1 + i for i in range(-1, len(b.source.splitlines()) + 1)} for b in found}
    code_lines = set().union(*(spans[b.number] for b in found if b.python))
    others = report_packages.others(modules, brought=not imported)
    subject = None if imported else report_packages.subject(others)
    wanted = {*imported, *(n for f in imported for n in _companions(f)), issue_versions.PYTHON,
              *(canonicalize_name(o) for o in others)}
    default = imported[0] if len(imported) == 1 else subject
    words = issue_versions.reporters_words(text)
    said = issue_versions.stated(words, code_lines, set().union(*spans.values()), default)
    stated = [s for s in said if canonicalize_name(s.package) in wanted]
    replay = issue_replay.way([line if i not in code_lines else "" for i, line in enumerate(words)], chosen, replay_as)
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / f"{name}_block{chosen.number}.py"
    script.write_text(issue_replay.as_cells(chosen.ipython, replay.per_statement) if replay.way == "ipython"
                      else source, encoding="utf-8")
    result = IssuePlan(script, chosen, len(found), stated, imported=imported, python=_python(stated), replay=replay,
                       rate=_rate(words, set().union(*spans.values())))
    index = index_url or config.DEFAULT_INDEX
    if subject is not None:  # no framework: the package the report is about is what runs on its releases and today's
        others = [o for o in others if o != subject]
        known = _index_releases(subject, index)
        newest = max((v for v in known or {} if not v.is_prerelease), default=None)
        result.subject, result.today = subject, f"{subject}=={newest}" if newest else ""
    result.packages = [_pinned(other, stated) for other in others]
    for framework in imported or ([subject] if subject else []):
        mine = [s for s in stated if s.package == framework]
        mine.sort(key=lambda s: {"bad": 0, "good": 1, "": 2}[s.role])
        if not mine:
            continue
        known = _index_releases(framework, index)
        releases: list[str] = []
        for item in mine:
            release, note = _release(item, known, path.name)
            result.notes += [note] if note else []
            if release is None:
                continue
            beside = [f"{s.package}=={s.version}" for s in stated if s.line == item.line
                      and s.package in _companions(framework) and s.version.count(".") >= 2]
            result.beside.setdefault(f"{framework}=={release}", beside)
            if release not in releases:
                releases.append(release)
        if releases:
            result.releases[framework] = releases[:MAX_RELEASES]
        if len(releases) > MAX_RELEASES:
            result.notes.append(f"{framework}: {', '.join(releases[MAX_RELEASES:])} stated too, not run (give them "
                                "with --with to run them)")
    return result


def _rate(words: list[str], block_lines: set[int]) -> ReportedRate | None:
    """The first growth figure the report's prose gives ("a steady memory increase ... of 190Mb per call")."""
    for index, line in enumerate(words):
        found = [] if index in block_lines else issue_prose.rates(line)
        if found:
            amount, per, said = found[0]
            return ReportedRate(amount, per, said, index + 1)
    return None


def _companions(framework: str) -> tuple[str, ...]:
    found = frameworks.named(framework)
    return found.reported_with if found else ()


def _python(stated: list[issue_versions.Stated]) -> issue_versions.Stated | None:
    """The Python the report ran on: a field or dump says it before prose does; the first of each."""
    pythons = [s for s in stated if s.package == issue_versions.PYTHON]
    return min(pythons, key=lambda s: (s.how == "prose", s.line)) if pythons else None


def _pinned(distribution: str, stated: list[issue_versions.Stated]) -> str:
    """``psutil==5.9.4`` where the report states that release of it, else ``psutil`` (pip's choice for the
    environment's Python and framework)."""
    version = next((s.version for s in stated if canonicalize_name(s.package) == canonicalize_name(distribution)
                    and s.version.count(".") >= 1), None)
    return f"{distribution}=={version}" if version else distribution


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
