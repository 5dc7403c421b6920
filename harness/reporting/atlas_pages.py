"""The atlas's citable pages: changes.html, every turn of an answer between two measured releases
(in the way asv lists regressions), and c/<id>.html, one page per grid cell that a paper or an
issue can link: its answer, each run's raw readings, the scenario's code and parameters, the
record's path and content hash, the rules and the commit that judged it, how to cite it, and the
command that measures it again on the reader's machine (not only renders it again).
"""
from __future__ import annotations

import functools
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from harness.common.meta import SCENARIOS_DIR
from harness.common.units import human_bytes
from harness.definitions.config import load_environments
from harness.judgement import rules
from harness.judgement.claims import Claim
from harness.judgement.turns import RUNS_TO_CONFIRM, candidate_words, confirmed
from harness.reporting import templates, upstream
from harness.reporting.atlas import Cell, grid_id, lane_of, release_of
from harness.reporting.atlas_answers import agreeing, answer_of, measured, standing, turn_points
from harness.reporting.atlas_html import STYLE, evidence_link

SCENARIOS = SCENARIOS_DIR


@dataclass(frozen=True)
class Change:
    """One turn: a technique's answer on one framework and hardware, before and after a release."""

    technique: str
    framework: str
    hardware: str
    before: Cell  # the last release before the turn that measured or failed (its answer as the grid shows it)
    before_runs: int
    after: Cell
    after_runs: int
    between: tuple[str, ...]  # releases of that lane in between with no measured cell (the turn is there too)
    elsewhere: tuple[str, ...] = ()  # releases in between measured on other hardware only, never on this one
    upstream: tuple[upstream.Report, ...] = ()  # reports upstream that put a change here


def changes(grid: dict[str, dict[str, list[Cell]]], cols: list[str],
            reports: list[upstream.Report] | None = None) -> list[Change]:
    """Every turn of every technique (atlas_answers.turn_points: a sweep's rules), with the answers on both
    sides, the distinct runs that gave each, the lane's releases in between that answered nothing, the
    framework's releases in between measured only on other hardware, and the upstream reports that
    put a change there."""
    found = []
    for technique in sorted(grid):
        row = grid[technique]
        for col, before_col in turn_points(row, cols):
            lane = lane_of(col)
            inside = cols[cols.index(before_col) + 1:cols.index(col)]
            between = tuple(release_of(c) for c in inside if lane_of(c) == lane)
            before, after = standing(row[before_col]), standing(row[col])
            assert before is not None and after is not None  # turn_points compares measured or failed runs only
            elsewhere = measured_elsewhere(row, lane, before.release, after.release)
            linked = tuple(r for r in reports or [] if r.explains(technique, before.release, after.release))
            found.append(Change(technique, lane[0], lane[1], before, len(agreeing(row[before_col])), after,
                                len(agreeing(row[col])), between, elsewhere, linked))
    return found


def _public(release: str) -> Version | None:
    """A release as a version without its build ('2.11.0+cu130' is 2.11.0), None for one that is none."""
    try:
        return Version(Version(release).public)
    except InvalidVersion:
        return None


def measured_elsewhere(row: dict[str, list[Cell]], lane: tuple[str, str], low: str, high: str) -> tuple[str, ...]:
    """The releases strictly between ``low`` and ``high`` where this technique was measured on the framework's
    other hardware and never on this lane's (a local build, 2.11.0+cu130, is its release 2.11.0)."""
    low_version, high_version = _public(low), _public(high)
    if low_version is None or high_version is None:
        return ()
    here = {_public(release_of(c)) for c, cells in row.items() if lane_of(c) == lane and measured(cells)}
    found: dict[str, Version] = {}
    for col, cells in row.items():
        version = _public(release_of(col))
        if (version is not None and low_version < version < high_version and version not in here
                and lane_of(col)[0] == lane[0] and lane_of(col) != lane and measured(cells)):
            found[release_of(col)] = version
    return tuple(sorted(found, key=found.__getitem__))


def _remeasure(cell: Cell) -> str:
    """The command that measures this cell again on the reader's machine, in the environment the run used: a
    defined one by its name (tf1.8 is its image, not any TF 1.8), pins as they were asked for, or the reader's
    own interpreter where the run used a Python as found."""
    what = "repro SCRIPT" if cell.technique.startswith("repro/") else f"matrix --scenario {cell.technique}"
    if cell.env in _defined():
        where = f"--env {cell.env}"
    elif "==" in cell.env:
        where = f"--with {shlex.quote(cell.env)}"
    else:
        return (f"python -m harness {what} --interpreter PYTHON  "
                f"# a Python with {cell.framework} {cell.release}, as {cell.env} was")
    variant = "" if cell.hardware == "CPU" else " --variant gpu"
    backend = f" --backend {cell.backend}" if cell.backend in ("venv", "docker") else ""
    # the run's variables, but not a folder of the machine it ran on (a library path there means nothing here)
    setenv = "".join(f" --setenv {shlex.quote(f'{k}={v}')}" for k, v in cell.setenv if not v.startswith("/"))
    return f"python -m harness {what} {where}{variant}{backend}{setenv}"


@functools.cache
def _defined() -> frozenset[str]:
    """The names of the tool's own environments (matrix/environments.toml)."""
    return frozenset(load_environments())


def commit_of(root: Path) -> str:
    """The commit of the checkout the references are in: what a page's numbers were judged at."""
    try:
        done = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
    except OSError:
        return "unknown (not a git checkout)"
    return done.stdout.strip() or "unknown (not a git checkout)"


METERS = ("rss", "nvml_device", "nvml_process")  # the raw readings a cell page shows, in this order


def _readings(cell: Cell) -> list[dict[str, Any]]:
    """Each checkpoint's raw readings (host RSS, the GPU, the process on it) and the framework's own count."""
    def shown(value: Any) -> str:
        return human_bytes(value) if isinstance(value, int) else "-"
    return [{"label": str(cp.get("label")), "values": [shown((cp.get("readings") or {}).get(m)) for m in METERS],
             "framework": shown(cp.get("in_use"))} for cp in cell.checkpoints]


def cell_page(technique: str, column: str, cells: list[Cell], claims: list[Claim], commit: str) -> str:
    """A grid cell's permalink page (c/<id>.html)."""
    shown, runs, back = answer_of(cells)
    source = SCENARIOS / f"{technique.split('@', 1)[0]}.py"  # a variant runs its scenario's file with other params
    ident = grid_id(technique, column)
    rows = [{"run": c.run, "env": c.env, "backend": c.backend, "status": c.status, "word": c.word,
             "back": c.back.replace("/", ""), "record": c.record_path, "hash": c.record_hash, "sha1": c.file_sha1,
             "params": c.params,
             "link": evidence_link(c, 1), "readings": _readings(c), "stand_in": c.stand_in, "ran_with": c.ran_with}
            for c in cells]
    cite = _cite(technique, column, ident, shown, runs, commit)
    return templates.render("atlas_cell.html", title=f"{technique} · {column}", depth=1, style=STYLE, ident=ident, meters=METERS,
                            back=back.replace("/", ""), word=shown.word, runs=len(runs), claims=claims, rows=rows,
                            code=source.read_text(encoding="utf-8") if source.is_file() else "",
                            rules=rules.RULES_VERSION, commit=commit, cite=cite, remeasure=_remeasure(shown),
                            rerender=f"python -m harness report matrix/reference/{shown.run}")


def _cite(technique: str, column: str, ident: str, shown: Cell, runs: list[Cell], commit: str) -> str:
    """A grid cell as a reader cites it: where its page is, what it answered on which GPU, driver and CUDA, how it
    ran where not as its own install would, and what judged it."""
    how = sorted({c.ran_with for c in runs if c.ran_with})
    where = (f"{shown.hardware}, NVIDIA driver {shown.driver}" if shown.driver else shown.hardware) + (
        f", CUDA {shown.cuda}" if shown.cuda else "")
    return (f"GPU memory cleanup atlas: {technique} on {column}, grid cell {ident} (its page: c/{ident}.html): "
            f"{shown.word}; {len(runs)} measured run{'s' if len(runs) != 1 else ''} ({shown.date[:10] or 'undated'}) "
            f"on {where}" + (f"; ran with {' | '.join(how)}" if how else "")
            + f"; judged by rules {rules.RULES_VERSION} at commit {commit[:12]}.")


def changes_page(found: list[Change]) -> str:
    rows: list[dict[str, Any]] = [{
        "technique": c.technique, "lane": f"{c.framework} · {c.hardware}", "id": grid_id(c.technique, c.after.column),
        "before": c.before.release, "before_word": c.before.word, "before_runs": c.before_runs,
        "before_back": c.before.back.replace("/", ""), "after": c.after.release, "after_word": c.after.word,
        "after_runs": c.after_runs, "after_back": c.after.back.replace("/", ""), "between": ", ".join(c.between),
        "elsewhere": ", ".join(c.elsewhere), "upstream": c.upstream,
        "standing": candidate_words((c.before_runs, c.after_runs)), "confirmed": confirmed((c.before_runs, c.after_runs))}
        for c in found]
    return templates.render("atlas_changes.html", title="What changed when", depth=0, style=STYLE, rows=rows,
                            confirmed=sum(1 for r in rows if r["confirmed"]), needed=RUNS_TO_CONFIRM)
