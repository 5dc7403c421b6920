"""``history``: the whole GPU history in one command. Every framework's releases (matrix/history.toml: a
sweep per framework build) swept in turn on this host, each sweep an ordinary sweep folder under one
history folder, with what each sweep ran, skipped and found and the time it took (history.json, written
after every sweep, and history.md). A history stopped half way resumes: each sweep already begun is
finished by its own --resume, the others start.
"""
from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import cast

from packaging.version import Version
from typing_extensions import Required, TypedDict

from harness.common import tomlfile
from harness.common.errors import HarnessError, UsageError
from harness.common.events import Event
from harness.definitions.config import data_root
from harness.measurement.nvml import Nvml
from harness.running import sweep_run
from harness.running.request import MatrixOptions
from harness.store import results

# a [[sweep]] of history.toml ("from" is a keyword, so the functional form)
SweepTable = TypedDict("SweepTable", {"package": str, "from": str, "to": str, "every": str, "releases": list[str],
                                      "script": str, "why": str}, total=False)
KEYS = SweepTable.__optional_keys__


class SweepDone(TypedDict, total=False):
    """One sweep of the history as history.json keeps it: where it ran and what it found, or why it could not."""

    sweep: Required[str]  # its folder's name (Part.label)
    package: str
    run: str  # its run folder, under the history's
    releases: list[str]
    skipped: list[str]
    changes: int  # the turns it found
    error: str  # why it could not run (then none of the above but wall_s)
    wall_s: float
    why: str


class HistorySummary(TypedDict):
    sweeps: list[SweepDone]
    wall_s: float
    variant: str | None


@dataclass(frozen=True)
class Part:
    """One sweep of the history: a framework build's releases, every minor's newest between two, or a list."""

    package: str
    low: str
    high: str
    every: str = "minor"
    releases: tuple[str, ...] = ()  # these, where a span's newest patches would miss the ones asked for
    script: Path | None = None  # a script run in every release, else the scenarios that apply
    why: str = ""  # what this sweep is for, said in history.md

    @property
    def label(self) -> str:
        """Its folder's name: ``torch-1.0.1-2.15.0``."""
        return re.sub(r"[^A-Za-z0-9._-]+", "_", f"{self.package}-{self.low}-{self.high}")


def load(path: Path | None = None) -> list[Part]:
    """The history's sweeps (matrix/history.toml of the checkout or the installed tool, or ``path``)."""
    path = path or data_root() / "matrix" / "history.toml"
    parts = []
    for raw in tomlfile.read(path, "the GPU history").get("sweep", []):
        table = cast(SweepTable, raw)  # its keys checked here, each value made the type Part needs
        unknown = set(table) - KEYS
        if unknown or "package" not in table or not (table.get("releases") or ("from" in table and "to" in table)):
            raise UsageError(f"{path.name}: a [[sweep]] needs package and from/to or releases (unknown: "
                             f"{', '.join(sorted(unknown)) or 'none'}): {table}")
        listed = tuple(str(v) for v in table.get("releases", ()))
        ordered = sorted(listed, key=Version)
        script = Path(table["script"]) if table.get("script") else None
        parts.append(Part(package=str(table["package"]), low=str(table.get("from") or ordered[0]),
                          high=str(table.get("to") or ordered[-1]), every=str(table.get("every", "minor")),
                          releases=tuple(ordered), script=path.parent / script if script else None,
                          why=str(table.get("why", ""))))
    return parts


def chosen(parts: list[Part], only: list[str]) -> list[Part]:
    """The parts of the packages named (all without a name); a name no part has is a usage error."""
    if not only:
        return parts
    unknown = [name for name in only if not any(p.package.split("[")[0] == name for p in parts)]
    if unknown:
        raise UsageError(f"--only {', '.join(unknown)}: the history has no sweep of it; its packages: "
                         f"{', '.join(dict.fromkeys(p.package for p in parts))}")
    return [p for p in parts if p.package.split("[")[0] in only]


def sweep_of(part: Part, matrix: MatrixOptions, repeat: int = 3) -> sweep_run.SweepOptions:
    """The sweep ``part`` asks for, run with ``matrix``."""
    return sweep_run.SweepOptions(package=part.package, low=part.low, high=part.high, every=part.every,
                                  releases=part.releases, script=part.script, repeat=repeat, matrix=matrix)


def options_of(part: Part, matrix: MatrixOptions, folder: Path, repeat: int) -> sweep_run.SweepOptions:
    """The sweep of ``part`` in its own folder of the history: resumed where it was begun, else new."""
    home = folder / part.label
    begun = sorted(p.parent for p in home.glob(f"*/{results.SWEEP}")) if home.is_dir() else []
    if begun:
        return sweep_run.resumed(begun[-1], replace(matrix, results_root=home))
    return sweep_of(part, replace(matrix, results_root=home), repeat)


def plan(parts: list[Part], matrix: MatrixOptions) -> list[tuple[Part, list[str] | str]]:
    """Each part's releases as its sweep would choose them from the index (its own list where it has one,
    as run_sweep takes it), or why it cannot."""
    found: list[tuple[Part, list[str] | str]] = []
    for part in parts:
        try:
            found.append((part, list(part.releases) or [str(v) for v in sweep_run.releases_to_sweep(sweep_of(part, matrix))]))
        except HarnessError as exc:
            found.append((part, exc.message))
    return found


def run_history(parts: list[Part], matrix: MatrixOptions, folder: Path, nvml: Nvml, emit: Event,
                repeat: int = 3, clock: Callable[[], float] = time.monotonic) -> HistorySummary:
    """Every part swept in turn into ``folder``; history.json after each, history.md at the end."""
    began = clock()
    done: list[SweepDone] = []
    for part in parts:
        emit("history-part", {"package": part.package, "label": part.label})
        started = clock()
        try:
            run = sweep_run.run_sweep(options_of(part, matrix, folder, repeat), nvml, emit)
            done.append({"sweep": part.label, "package": part.package, "run": str(run.run_dir.relative_to(folder)),
                         "releases": run.releases, "skipped": sorted(run.skipped), "changes": len(run.changes),
                         "wall_s": round(clock() - started, 1), "why": part.why})
        except HarnessError as exc:  # one sweep that cannot run is its line in the history, the others still run
            done.append({"sweep": part.label, "package": part.package, "error": exc.message,
                         "wall_s": round(clock() - started, 1), "why": part.why})
        summary = HistorySummary(sweeps=done, wall_s=round(clock() - began, 1), variant=matrix.variant)
        results.write_json(folder / "history.json", summary)
    results.write_text(folder / "history.md", markdown(summary))
    return summary


def markdown(summary: HistorySummary) -> str:
    lines = ["# GPU history" if summary.get("variant") != "cpu" else "# History (CPU)", "",
             "| sweep | releases run | not run | turns | time | folder |", "|---|---|---|---|---|---|"]
    for part in summary["sweeps"]:
        if "error" in part:
            lines.append(f"| {part['sweep']} | - | {part['error']} | - | {_duration(part['wall_s'])} | - |")
            continue
        ran = [r for r in part["releases"] if not any(s.endswith(f"=={r}") for s in part["skipped"])]
        lines.append(f"| {part['sweep']} | {len(ran)} of {len(part['releases'])} | {', '.join(part['skipped']) or '-'} | "
                     f"{part['changes']} | {_duration(part['wall_s'])} | `{part['run']}` |")
    lines += ["", f"All {len(summary['sweeps'])} sweeps: {_duration(summary['wall_s'])} (this part of the history; a "
                  "resumed history's earlier parts are in their sweeps' own sweep.json)", ""]
    return "\n".join(lines)


def _duration(seconds: float) -> str:
    """45.2 s, 3 min 20 s, 1 h 02 min."""
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest:02d} s" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d} min"
