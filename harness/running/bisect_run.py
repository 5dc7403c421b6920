"""``bisect``: run a script on the releases between a good and a bad one, as few as it takes.

Each release is an environment made from a pin (adhoc.py) and run through the matrix like any
other, into one run folder; bisection.py decides which release runs next and what the answer is.
The folder ends up with the usual matrix.md, matrix.json and report.html, plus bisect.md and
bisect.json (the releases, the criterion, every value and the answer).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from packaging.version import Version

from harness.common.errors import UsageError
from harness.common.events import Event
from harness.environments import pkgindex
from harness.judgement import criteria, tolerances
from harness.measurement.nvml import Nvml
from harness.model.record import CellRecord, Status
from harness.reporting import aggregate
from harness.running import bisection, repro
from harness.running.matrix import run_matrix
from harness.running.request import MatrixOptions
from harness.store import results


@dataclass(frozen=True, kw_only=True)
class BisectOptions:
    script: Path
    package: str
    good: str
    bad: str
    criterion: criteria.Criterion = field(default_factory=criteria.Criterion)
    pre: bool = False
    matrix: MatrixOptions = field(default_factory=MatrixOptions)  # backend, variant, build, setenv, ...


@dataclass
class BisectRun:
    run_dir: Path
    outcome: bisection.Outcome
    records: list[CellRecord]


def releases_to_try(options: BisectOptions) -> list[Version]:
    """The index's releases from --good to --bad, ordered from good to bad."""
    good, bad = pkgindex.version_arg(options.good, "--good"), pkgindex.version_arg(options.bad, "--bad")
    if good == bad:
        raise UsageError("--good and --bad name the same release")
    name, _ = pkgindex.package_arg(options.package)
    found = pkgindex.releases_with(name, options.matrix.index_url, {"--good": good, "--bad": bad})
    versions = pkgindex.between(found, good, bad, options.pre)
    return versions if good < bad else versions[::-1]


def run_bisect(options: BisectOptions, nvml: Nvml, emit: Event) -> BisectRun:
    item = repro.script_scenario(options.script, options.matrix.timeout, plain=True)
    versions = releases_to_try(options)
    emit("releases", {"package": options.package, "versions": [str(v) for v in versions]})
    run_id = results.new_run_id()
    run_dir = options.matrix.results_root / run_id
    records: list[CellRecord] = []
    planned: list[tuple[str, str]] = []
    walls: dict[Version, float] = {}  # making the environment (build or virtualenv) and running the script
    came: dict[Version, dict[str, str]] = {}  # what each release's environment imported besides the package

    def one(version: Version) -> tuple[CellRecord | None, str]:
        emit("version", {"version": str(version)})
        (pin,) = pkgindex.release_pins(options.package, [version], options.matrix.with_pins)
        run = run_matrix(replace(options.matrix, items=[item], with_pins=[pin], envs=None, run_id=run_id), nvml, emit)
        planned.extend(run.planned)
        records.extend(run.records)
        walls[version] = run.wall_s
        ran = [r for r in run.records if r["status"] != Status.SKIPPED and r["env"]["name"] not in run.failed]
        if ran:
            found = (ran[0].get("facts") or {}).get("frameworks") or {}
            came[version] = {k: str(v) for k, v in found.items() if v and k != options.package}
            return ran[0], ""
        return None, next(iter({**run.skipped, **run.failed}.values()), "did not run").splitlines()[0]

    outcome = bisection.search(versions, options.criterion, one)
    summary = {
        "package": options.package, "good": options.good, "bad": options.bad, "releases": [str(v) for v in versions],
        "criterion": {"name": options.criterion.name, "threshold_bytes": options.criterion.threshold,
                      "label": options.criterion.label or None, "text": options.criterion.describe()},
        "runs": [{"version": str(s.version), "value": s.measure.value if s.measure else None,
                  "meter": s.measure.meter if s.measure else None, "where": s.measure.where if s.measure else s.note,
                  "bad": s.bad, "status": s.status, "wall_s": walls.get(s.version),
                  "with": came.get(s.version, {})} for s in outcome.steps],
        "first_bad": str(outcome.first_bad) if outcome.first_bad else None,
        "last_good": str(outcome.last_good) if outcome.last_good else None,
        "answer": outcome.answer,
    }
    results.write_json(run_dir / "bisect.json", summary)
    results.write_text(run_dir / "bisect.md", markdown(options, outcome, len(versions), walls, came))
    aggregate.write_reports(run_dir, planned, note=f"bisect of {options.package} {options.good}..{options.bad}: "
                                                   f"{outcome.answer}")
    return BisectRun(run_dir, outcome, records)


def markdown(options: BisectOptions, outcome: bisection.Outcome, releases: int, walls: dict[Version, float],
             came: dict[Version, dict[str, str]] | None = None) -> str:
    meters = {s.measure.meter for s in outcome.steps if s.measure}
    meter = {**tolerances.METER_WORDS,
             "framework": "the framework's own in-use count (NVML flat over the pool it mapped before the loop)"}
    lines = [f"### Bisect of `{options.script.name}` over {options.package} {options.good} .. {options.bad}", "",
             f"Criterion: {options.criterion.describe()}; measured on "
             f"{', '.join(meter.get(m, m) for m in sorted(meters)) or 'nothing'}, over the process start.", "",
             bisection.table(outcome, options.criterion, walls, came), "",
             f"{len(outcome.steps)} of {releases} releases run. **{outcome.answer}**", ""]
    return "\n".join(lines)
