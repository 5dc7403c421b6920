"""``sweep``: a package's releases as the columns of one matrix, and where each row's answer turns.

Each release is an environment made from a pin (adhoc.py), exactly as ``--with`` makes one, and
all of them run as one matrix run (cells in parallel as the matrix runs them), so the run folder
is an ordinary one: records, matrix.md, matrix.json, report.html, plus sweep.md and sweep.json.
A release that cannot be installed here is a skipped column with its reason, never an abort.
A change is marked where a row's answer (glance.py: what the driver got back, and the verdict)
differs from the nearest release to its left that measured something.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from packaging.version import Version

from harness.common.errors import HarnessError, UsageError
from harness.common.events import Event
from harness.environments import pkgindex
from harness.judgement import amounts
from harness.measurement.nvml import Nvml
from harness.model.judged import Change, MatrixDoc, SweepRequest, SweepSummary
from harness.model.record import CellRecord
from harness.reporting import aggregate, sweeps
from harness.running import repro
from harness.running.matrix import run_matrix
from harness.running.request import MatrixOptions
from harness.store import results

EVERY = ("minor", "patch")
REPEATED_AT_MOST = 4  # amount candidates a sweep repeats by itself (largest ratio first); the others stay candidates
CHANGES_REPEATED_AT_MOST = 12  # changes of answer whose sides it runs again (the first found); the others: candidates


@dataclass(frozen=True, kw_only=True)
class SweepOptions:
    package: str
    low: str
    high: str
    every: str = "minor"
    pre: bool = False
    script: Path | None = None  # else the catalogue's scenarios (matrix.scenarios filters them)
    matrix: MatrixOptions = field(default_factory=MatrixOptions)
    releases: tuple[str, ...] = ()  # these (a resumed sweep's), not the index's between low and high
    repeat: int = 3  # runs of each side of a turn (the first run included): what confirms it


@dataclass
class SweepRun:
    run_dir: Path
    releases: list[str]
    changes: list[Change]
    records: list[CellRecord]
    skipped: dict[str, str]


def pick(found: dict[Version, pkgindex.Release], low: Version, high: Version, every: str, pre: bool) -> list[Version]:
    """The releases from ``low`` to ``high``, oldest first: all, or each minor's newest (``every``)."""
    if every not in EVERY:
        raise UsageError(f"--every {every!r}: one of {', '.join(EVERY)}")
    chosen = pkgindex.between(found, low, high, pre)
    if every == "patch":
        return chosen
    newest: dict[tuple[int, int], Version] = {}
    for version in chosen:
        newest[(version.major, version.minor)] = version  # oldest first: the last of each minor wins
    return sorted(newest.values())


def releases_to_sweep(options: SweepOptions) -> list[Version]:
    low, high = pkgindex.version_arg(options.low, "--from"), pkgindex.version_arg(options.high, "--to")
    name, _ = pkgindex.package_arg(options.package)
    found = pkgindex.releases_with(name, options.matrix.index_url, {"--from": low, "--to": high})
    return pick(found, min(low, high), max(low, high), options.every, options.pre)


def resumed(run_dir: Path, matrix: MatrixOptions) -> SweepOptions:
    """The sweep ``run_dir`` was started as, to finish it (--resume): its releases as planned, its
    fixed pins, only the cells without a finished record run."""
    from harness.running.resume import resume_options

    try:
        asked = results.read_sweep(run_dir)["request"]
    except (OSError, ValueError, KeyError) as exc:
        raise UsageError(f"--resume {run_dir}: no sweep.json with the sweep's request there ({exc}); give a sweep's "
                         "run folder") from exc
    again = replace(resume_options(run_dir, matrix), with_pins=list(asked["fixed"]))
    return SweepOptions(package=asked["package"], low=asked["from"], high=asked["to"], every=asked["every"],
                        pre=asked["pre"], script=Path(asked["script"]) if asked["script"] else None, matrix=again,
                        releases=tuple(asked["releases"]), repeat=int(asked.get("repeat", 1)))


def widened(options: SweepOptions, low: str | None, high: str | None) -> SweepOptions:
    """A kept sweep given more releases (--resume RUN_DIR --from/--to): the releases it has and those
    the index has between the wider bounds, so that only the new columns' cells run (a new release
    out, or an older one whose wheels can now be had). Bounds only widen: a sweep never drops what
    it measured."""
    kept = [Version(v) for v in options.releases]
    lo = pkgindex.version_arg(low, "--from") if low else Version(options.low)
    hi = pkgindex.version_arg(high, "--to") if high else Version(options.high)
    if lo > Version(options.low) or hi < Version(options.high):
        raise UsageError(f"--from {lo} --to {hi} would narrow the sweep kept there ({options.low} .. {options.high}); "
                         "a resumed sweep only widens: give bounds that hold both")
    wider = replace(options, low=str(lo), high=str(hi), releases=())
    found = releases_to_sweep(wider)
    return replace(wider, releases=tuple(str(v) for v in sorted(set(kept) | set(found))))


def _repeat(options: SweepOptions, run_dir: Path, matrix: MatrixDoc, columns: list[tuple[str, str]],
            items: list[Any] | None, nvml: Nvml, emit: Event) -> tuple[dict[str, list[int]], sweeps.Repeated]:
    """Both sides of each change of answer and of each turn made of amounts run again until each has ``repeat``
    runs in all (run folders of their own under repeats/; a resumed sweep runs only what is missing), a release's
    scenarios together. Returns what each amount side left, the first run's included, and every repeat's cell, which
    a change of answer is judged from (sweeps.stand)."""
    envs = dict(columns)
    plain = sweeps.changes(matrix, columns)
    found = sorted(amounts.candidates(matrix, columns, {(c["scenario"], c["release"]) for c in plain}),
                   key=amounts.ratio, reverse=True)[:REPEATED_AT_MOST]  # a sweep whose every row moves is not repeated whole
    sides: dict[str, set[str]] = {}
    for turn in [*plain[:CHANGES_REPEATED_AT_MOST], *found]:
        for release in (turn["before_release"], turn["release"]):
            sides.setdefault(release, set()).add(turn["scenario"])
    done = sweeps.repeat_cells(run_dir)
    ran = False
    for release, env in columns:
        missing = {name: options.repeat - 1 - len(done.get((env, name), [])) for name in sides.get(release, ())}
        most = max(missing.values(), default=0)
        for n in range(most):
            names = sorted(name for name, left in missing.items() if left > n)
            emit("version", {"version": f"{release} again ({options.repeat - most + n + 1} of {options.repeat}): "
                                        f"{', '.join(names)}"})
            ran = True
            try:
                run_matrix(replace(options.matrix, items=items, with_pins=[env], envs=None,
                                   scenarios=None if items else names, run_id=None, resume=False,
                                   results_root=run_dir / "repeats"), nvml, emit)
            except HarnessError as exc:  # this side cannot run again here (its image gone): fewer repeats
                emit("failed", {"env": env, "reason": f"repeat not run: {exc.message}"})
                break
    if ran:
        done = sweeps.repeat_cells(run_dir)
    kept: dict[str, list[int]] = {}
    for cand in found:
        for release in (cand["before_release"], cand["release"]):
            first = amounts.amount(matrix["cells"][cand["scenario"]][envs[release]])
            again = [left[0] for cell in done.get((envs[release], cand["scenario"]), [])
                     if (left := amounts.amount(cell)) is not None]
            if first is not None:
                kept[amounts.key(cand["scenario"], release)] = [first[0], *again][:options.repeat]
    return kept, done


def _earlier_parts(run_dir: Path) -> SweepSummary:
    """What the finished parts of a resumed sweep took (their time, their environments), so that
    sweep.md speaks of the whole sweep. Where an earlier part's time was not kept (a part cut before it
    finished, a sweep.json edited by hand) ``wall_s`` is None: the whole time is then unknown, and this
    part's time said as the whole would be wrong."""
    try:
        found = results.read_sweep(run_dir)
    except (OSError, ValueError):
        return {}
    if "columns" not in found:  # only the request: the part before was cut
        return {"wall_s": None, "prepare_s": {}, "parts": 1}
    return {"wall_s": found.get("wall_s"), "prepare_s": found.get("prepare_s") or {}, "parts": found.get("parts", 1)}


def _took(this_part_s: float, earlier: SweepSummary) -> SweepSummary:
    """The sweep's time over its parts, or only this part's where an earlier part's time is unknown."""
    parts = earlier.get("parts", 0) + 1
    before = earlier.get("wall_s", 0.0)
    if earlier and before is None:
        return {"part_wall_s": round(this_part_s, 1), "parts": parts}
    return {"wall_s": round(this_part_s + (before or 0.0), 1), "parts": parts}


def run_sweep(options: SweepOptions, nvml: Nvml, emit: Event) -> SweepRun:
    started = time.monotonic()
    versions = [Version(v) for v in options.releases] or releases_to_sweep(options)
    emit("releases", {"package": options.package, "versions": [str(v) for v in versions]})
    pins = pkgindex.release_pins(options.package, versions, options.matrix.with_pins)
    items = [repro.script_scenario(options.script, options.matrix.timeout, plain=True)] if options.script else None
    run_id = options.matrix.run_id or results.new_run_id()
    request: SweepRequest = {"package": options.package, "from": options.low, "to": options.high, "every": options.every,
               "pre": options.pre, "script": str(options.script) if options.script else None,
               "fixed": list(options.matrix.with_pins), "releases": [str(v) for v in versions],
               "repeat": options.repeat}
    earlier = _earlier_parts(options.matrix.results_root / run_id) if options.matrix.resume else {}
    if not options.matrix.resume:  # kept first: a sweep cut by the machine going away resumes from it
        results.write_json(options.matrix.results_root / run_id / "sweep.json", {"request": request})
    run = run_matrix(replace(options.matrix, items=items, with_pins=pins, envs=None, run_id=run_id), nvml, emit)
    matrix = aggregate.build_matrix(run.run_dir)
    columns = [(str(v), pin) for v, pin in zip(versions, pins, strict=True)]
    skipped = {**run.skipped, **run.failed}
    made = run.prepare_s | earlier.get("prepare_s", {})  # this part's environments and the earlier parts'
    kept, repeated = (_repeat(options, run.run_dir, matrix, columns, items, nvml, emit) if options.repeat > 1
                      else ({}, sweeps.repeat_cells(run.run_dir)))
    summary: SweepSummary = {
        "package": options.package, "from": options.low, "to": options.high, "every": options.every,
        "fixed": list(options.matrix.with_pins), "releases": [str(v) for v in versions],
        "columns": dict((pin, rel) for rel, pin in columns), "skipped": skipped,
        "prepare_s": {pin: made[pin] for _, pin in columns if pin in made}, "request": request,
        "repeats": kept}
    sweeps.judge(summary, matrix, repeated)
    found = summary["changes"]
    summary.update(_took(time.monotonic() - started, earlier))
    results.write_json(run.run_dir / "sweep.json", summary)
    results.write_text(run.run_dir / "sweep.md", sweeps.markdown(summary))
    aggregate.write_reports(run.run_dir, run.planned, note=f"sweep of {options.package} {options.low}..{options.high} "
                            f"(every {options.every}): {len(found)} change(s)", sweep=summary)
    return SweepRun(run.run_dir, [str(v) for v in versions], found, run.records, skipped)
