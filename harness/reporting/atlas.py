"""The atlas's data: every committed reference run, re-judged, as one table of measured cells and
steps with stable ids (atlas.json, atlas.csv), and the landing grid made from it: a row per
cleanup technique, a column per framework release and hardware, each cell what came back.

Columns are what was measured (a framework's release on a GPU model, or on CPU); several runs of
one cell (container and host process, repeats, other drivers) are kept side by side, and where
their answers differ the grid says so instead of picking one.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from harness import frameworks
from harness.common import pinned
from harness.judgement import claims as seed_claims
from harness.judgement.cell import judge_cell
from harness.judgement.floors import in_use
from harness.judgement.turns import parts, side
from harness.model.judged import CellSummary, Step
from harness.model.record import CellRecord
from harness.reporting import glance, machines
from harness.reporting.atlas_how import ran_with
from harness.reporting.atlas_runs import Run
from harness.store.results import cell_path, kept_path


@dataclass(frozen=True)
class Cell:
    """One measured cell of one run, with the glance answer and where its evidence is."""

    run: str
    env: str
    report_key: str  # the cell's key in its run's report.html ("technique|column there")
    technique: str
    family: str
    framework: str
    release: str
    hardware: str
    driver: str
    backend: str
    image: str
    definition_hash: str
    python: str
    cuda: str
    status: str
    back: str
    word: str
    date: str
    steps: tuple[Step, ...]
    record_hash: str = ""  # sha1 of the record's content: a byte-identical copy of a run is the same run
    record_path: str = ""  # the record's file under the references
    file_sha1: str = ""  # sha1 of that file as committed (sha1sum matrix/reference/<record_path>)
    params: str = ""  # the scenario's parameters as it ran (JSON)
    checkpoints: tuple[dict[str, Any], ...] = ()  # each checkpoint's label, raw readings and the framework's in-use bytes
    compared: tuple[Any, ...] = ()  # what a turn compares (judgement/turns.parts); (): the colour alone
    slope: int | None = None  # a loop's growth per iteration (bytes), by the meter that answered; None: no loop
    setenv: tuple[tuple[str, str], ...] = ()  # the variables the run set for its cells (--setenv), sorted
    stand_in: str = ""  # the base it ran on stood in for the one its image names: what it was (Run.stand_in)
    ran_with: str = ""  # how the release ran where not as its own install would (atlas_how.ran_with)

    @property
    def column(self) -> str:
        return f"{self.framework} {self.release} · {self.hardware}"

    @property
    def cell_id(self) -> str:
        return hashlib.sha1(f"{self.run}|{self.env}|{self.technique}".encode()).hexdigest()[:16]


def _framework(record: CellRecord, in_env: dict[str, str]) -> tuple[str, str]:
    """The framework the technique exercises and its release: as the cell imported it, else as
    another cell of the same environment did, else from the environment's pin (a cell that never
    got to import it)."""
    families = (record.get("scenario") or {}).get("families") or []
    seen = {**in_env, **((record.get("facts") or {}).get("frameworks") or {})}
    of_family = [found.name for found in map(frameworks.of_family, families) if found]
    names = of_family or [n for n in frameworks.names() if n in seen]
    pinned = _pinned(str((record.get("env") or {}).get("name") or ""))
    for name in names:
        if seen.get(name) or pinned.get(name):
            return name, str(seen.get(name) or pinned[name])
    return (names[0], "?") if names else ("python", str((record.get("facts") or {}).get("python") or "?"))


def _pinned(name: str) -> dict[str, str]:
    """An environment named by its pins ("jax[cuda12]==0.4.35,numpy==2.1"): each distribution's pinned release, under
    its framework's name too where the registry knows it ("cupy-cuda112==8.6.0": cupy 8.6.0)."""
    out: dict[str, str] = {}
    for req, version in pinned.exact(name):
        out[req.name] = version
        if (framework := frameworks.of_distribution(req.name)) is not None:
            out.setdefault(framework.name, version)
    return out


@dataclass(frozen=True)
class ClaimOutcome:
    claim: str  # its id in matrix/claims.toml
    outcome: str  # confirmed, contradicted, not reproduced
    column: str
    run: str
    why: str
    record: str = ""  # the hash of the claim's own cell's record: a copied run decides nothing again
    ran_with: str = ""  # how that cell's release ran where not as its own install would (atlas_how)


def claim_outcomes(run: Run, summaries: list[CellSummary], cells: list[Cell],
                   claims: list[seed_claims.Claim]) -> list[ClaimOutcome]:
    """Where this run confirms or contradicts each seed claim, in atlas columns."""
    column = machines.column_namer(run.records)
    by_env: dict[str, dict[str, Any]] = {}
    for record, summary in zip(run.records, summaries, strict=True):
        by_env.setdefault(record["scenario"]["name"], {})[column(record)] = summary
    envs = sorted({column(r) for r in run.records})
    atlas_cell = {c.report_key: c for c in cells}
    found = []
    for claim in claims:
        for env, result in seed_claims.assess(claim, by_env, envs).items():
            where = atlas_cell.get(f"{claim.scenario}|{env}")
            if where and result["outcome"] in ("confirmed", "contradicted", "not reproduced"):
                found.append(ClaimOutcome(claim.id, result["outcome"], where.column, run.name, str(result["why"]),
                                          where.record_hash, where.ran_with))
    return found


def cells_of(run: Run, summaries: list[CellSummary]) -> Iterator[Cell]:
    records = run.records
    column = machines.column_namer(records)
    versions: dict[str, dict[str, str]] = {}  # environment -> framework -> release, from any of its cells
    for record in records:
        found = (record.get("facts") or {}).get("frameworks") or {}
        versions.setdefault(str((record.get("env") or {}).get("name")), {}).update({k: str(v) for k, v in found.items() if v})
    # a cell that never ran (its environment was not built) has no host: tried on the run's GPU, not on a CPU
    run_gpu = next((str(((r.get("host") or {}).get("gpu") or {}).get("name") or "") for r in records
                    if ((r.get("host") or {}).get("gpu") or {}).get("name")), "")
    for record, summary in zip(records, summaries, strict=True):
        answer = summary["glance"]
        framework, release = _framework(record, versions.get(str((record.get("env") or {}).get("name")), {}))
        host, env, facts = record.get("host") or {}, record.get("env") or {}, record.get("facts") or {}
        gpu = str((host.get("gpu") or {}).get("name") or ("" if host else run_gpu)).replace("NVIDIA ", "")
        given = len(host.get("gpu_indices") or [])
        gpu = f"{given}x {gpu}" if gpu and given > 1 else gpu  # a script given several GPUs: a column of its own
        scenario = record["scenario"]
        yield Cell(run=run.name, env=str(env.get("name")), report_key=f"{scenario['name']}|{column(record)}",
                   technique=str(scenario["name"]), family=str((scenario.get("families") or ["repro"])[0])
                   if not str(scenario["name"]).startswith("repro/") else "repro",
                   framework=framework, release=release, hardware=gpu or "CPU",
                   driver=str(host.get("driver") or ""), backend=str(env.get("backend") or ""),
                   image=str(env.get("image") or ""),
                   definition_hash=str((env.get("image_labels") or {}).get("harness.definition-hash") or ""),
                   python=str(facts.get("python") or ""), cuda=glance.cuda_of(record),
                   # the judge's status: a broken image's records say "ok" and re-judge as unsupported
                   status=str(summary.get("status") or record.get("status")), back=str(answer["back"]),
                   word=side(summary),  # a failed run says what stopped it
                   date=str(record.get("started_at") or ""), steps=tuple(summary.get("steps") or ()),
                   record_hash=hashlib.sha1(json.dumps(record, sort_keys=True, default=str).encode()).hexdigest(),
                   record_path=str(Path(run.name) / (kept := kept_path(cell_path(run.path, str(env.get("name")),
                                                                                scenario["name"]))).relative_to(run.path)),
                   file_sha1=hashlib.sha1(kept.read_bytes()).hexdigest() if kept.is_file() else "",
                   params=json.dumps(scenario.get("params") or {}, sort_keys=True),
                   compared=parts(summary) or (),
                   slope=loop["slope"] if (loop := summary.get("loop")) else None,
                   setenv=tuple(sorted((str(k), str(v)) for k, v in (record.get("setenv") or {}).items())),
                   stand_in=(stand_in := run.stand_in if run.stand_in_all or env.get("backend") == "docker" else ""),
                   ran_with=ran_with(record, framework, release, stand_in),
                   checkpoints=tuple({"label": cp["label"], "readings": cp.get("readings") or {}, "in_use": in_use(cp)}
                                     for cp in record.get("checkpoints") or []))


def collect(runs: list[Run], claims: list[seed_claims.Claim]) -> tuple[list[Cell], list[ClaimOutcome]]:
    """Every cell of ``runs``, and where each seed claim was decided."""
    cells: list[Cell] = []
    outcomes: list[ClaimOutcome] = []
    decided: set[tuple[str, str, str]] = set()  # claim, column, record: a copy of a run counts once
    for run in runs:
        summaries = [judge_cell(record) for record in run.records]
        found = list(cells_of(run, summaries))
        cells += found
        for outcome in claim_outcomes(run, summaries, found, claims):
            if (outcome.claim, outcome.column, outcome.record) not in decided:
                decided.add((outcome.claim, outcome.column, outcome.record))
                outcomes.append(outcome)
    return cells, outcomes


def version_key(release: str) -> tuple[int, Any]:
    try:
        return (0, Version(release))
    except InvalidVersion:
        return (1, release)


def column_sort_key(column: str) -> tuple[Any, ...]:
    """A column's name ('torch 2.15.0 · H100 80GB HBM3') sorted as the grid sorts it."""
    head, _, hardware = column.partition(" · ")
    framework, _, release = head.partition(" ")
    return (framework, version_key(release), hardware == "CPU", hardware)


def columns(cells: list[Cell]) -> list[str]:
    """Framework, then release (as versions sort), then hardware (CPU last)."""
    first = {c.column: c for c in cells}
    order = {name: i for i, name in enumerate((*frameworks.names(), "python"))}
    return sorted(first, key=lambda col: (order.get(first[col].framework, 99), first[col].framework,
                                          version_key(first[col].release), first[col].hardware == "CPU", first[col].hardware))


def grid_id(technique: str, column: str) -> str:
    """A grid cell's stable id: the dataset's ``grid`` row id, and its page's name (c/<id>.html)."""
    return hashlib.sha1(f"{technique}|{column}".encode()).hexdigest()[:16]


def grid(cells: list[Cell]) -> dict[str, dict[str, list[Cell]]]:
    """technique -> column -> every cell measured there (several runs kept side by side)."""
    out: dict[str, dict[str, list[Cell]]] = {}
    for cell in cells:
        out.setdefault(cell.technique, {}).setdefault(cell.column, []).append(cell)
    return out


def lane_of(column: str) -> tuple[str, str]:
    """A column's lane: its framework and hardware ('torch 2.15.0 · H100' -> ('torch', 'H100'))."""
    return column.split(" ", 1)[0], column.partition(" · ")[2]


def release_of(column: str) -> str:
    """A column's release ('torch 2.15.0 · H100' -> '2.15.0')."""
    return column.split(" ", 1)[1].split(" · ")[0]
