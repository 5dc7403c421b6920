"""A sweep's summary: where a row's answer turns between neighbouring releases, and sweep.md.

Judged from the matrix, so a re-render (``harness report``) re-judges a sweep's changes with
today's rules, as it re-judges its cells, and rewrites sweep.json and sweep.md to agree.
"""
from __future__ import annotations

from pathlib import Path

from harness.common.units import human_bytes
from harness.judgement import amounts, turns
from harness.judgement.cell import judge_cell, read_judged
from harness.model.judged import CellSummary, Change, MatrixDoc, SweepSummary
from harness.model.record import Status
from harness.store import results

Repeated = dict[tuple[str, str], list[CellSummary]]  # (environment, scenario) -> its repeats' cells, judged


def changes(matrix: MatrixDoc, columns: list[tuple[str, str]]) -> list[Change]:
    """Each place where a row's answer turns (judgement/turns.py: the cleanup's answer, the loop's state and
    whether it ran at all, each against the nearest release to its left where it was judged); ``between``
    names the releases in between, which did not run or gave no comparable answer (the turn is somewhere
    there); a turn between failing and running is of kind "runs"."""
    found: list[Change] = []
    order = [release for release, _ in columns]
    envs = dict(columns)
    for scenario in matrix["scenarios"]:
        row = matrix["cells"].get(scenario, {})
        said = ((release, turns.parts(row.get(env))) for release, env in columns)
        for release, before_release, ran in turns.points(said):
            env, before_env = envs[release], envs[before_release]
            change: Change = {"scenario": scenario, "env": env, "release": release, "before_release": before_release,
                              "between": order[order.index(before_release) + 1:order.index(release)],
                              "before": turns.side(row[before_env]), "after": turns.side(row[env])}
            if ran:
                change["kind"] = "runs"
            found.append(change)
    return found


def _columns(summary: SweepSummary) -> list[tuple[str, str]]:
    """(release, environment) in version order: sweep.json's mappings are stored with sorted keys."""
    pins = {release: pin for pin, release in (summary.get("columns") or {}).items()}
    return [(release, pins[release]) for release in summary.get("releases") or [] if release in pins]


def repeat_cells(run_dir: Path) -> Repeated:
    """The cells a sweep ran again (repeats/: run folders of their own), judged by today's rules as its own are."""
    found: Repeated = {}
    for folder in sorted(p for p in (run_dir / "repeats").glob("*") if p.is_dir()):
        for record in read_judged(folder)[0]:
            found.setdefault((record["env"]["name"], record["scenario"]["name"]), []).append(judge_cell(record))
    return found


def stand(change: Change, matrix: MatrixDoc, columns: list[tuple[str, str]], repeated: Repeated) -> Change:
    """A change of answer with the runs behind each side: confirmed on RUNS_TO_CONFIRM runs a side that give that
    side's answer, contested where a run of one side gave the other's (as the atlas: no turn there), else a
    candidate."""
    row, envs = matrix["cells"][change["scenario"]], dict(columns)
    sides = []
    for env in (envs[change["before_release"]], change["env"]):
        first = turns.parts(row[env])
        sides.append((first, [first, *(turns.parts(cell) for cell in repeated.get((env, change["scenario"]), []))]))
    (before, before_runs), (after, after_runs) = sides
    runs = (before_runs.count(before), after_runs.count(after))
    judged: Change = {**change, "runs_each": list(runs)}
    judged["standing"] = ("contested" if before is None or after is None or turns.contested(before, after, before_runs,
                                                                                               after_runs)
                          else "confirmed" if turns.confirmed(runs) else "candidate")
    return judged


def judge(summary: SweepSummary, matrix: MatrixDoc, repeated: Repeated | None = None) -> None:
    """The sweep's turns on ``matrix``: where the answer changes (each with the runs behind its sides, its own and
    ``repeated``), and where only the amount did (candidates, confirmed by the repeats kept in the summary)."""
    columns = _columns(summary)
    stood = [stand(change, matrix, columns, repeated or {}) for change in changes(matrix, columns)]
    plain = [change for change in stood if change["standing"] != "contested"]
    summary.pop("unsettled", None)  # a re-render judges them again
    if unsettled := [change for change in stood if change["standing"] == "contested"]:
        summary["unsettled"] = unsettled
    turned = {(c["scenario"], c["release"]) for c in stood}
    summary["amounts"] = amounts.judge(amounts.candidates(matrix, columns, turned), summary.get("repeats") or {})
    summary["changes"] = plain + amounts.as_changes(summary["amounts"])
    summary["runtime"] = runtime_costs(matrix, columns)
    summary["unfinished"] = unfinished(matrix, columns)
    skipped = summary.setdefault("skipped", {})
    for pin in summary["unfinished"]:  # a resumed part's skips are lost: the cells that did not run say why
        if not skipped.get(pin):
            skipped[pin] = next((str(cell.get("error") or cell.get("status")) for row in matrix["cells"].values()
                                 if (cell := row.get(pin)) and cell.get("status") in MEASURED_NOTHING), "")
    summary["machine"] = matrix.get("machine")  # what was measured: a GPU's memory, or host memory only
    summary["companions"] = companions(matrix, columns, summary["package"])


def companions(matrix: MatrixDoc, columns: list[tuple[str, str]], package: str) -> dict[str, dict[str, str]]:
    """Release -> what came with it in its environment (Keras, numpy, jaxlib...: the versions its
    cells imported), so a turn can be told from a companion's."""
    found = {}
    for release, env in columns:
        seen: dict[str, str] = {}
        for by_env in (matrix.get("cells") or {}).values():
            cell = by_env.get(env)
            seen.update({k: str(v) for k, v in ((cell.get("framework") if cell else None) or {}).items() if v})
        seen.pop(package, None)
        found[release] = dict(sorted(seen.items()))
    return found


def _companion_lines(summary: SweepSummary) -> list[str]:
    """The companions in one line, each with its version per release where it changed."""
    per_release = {release: (summary.get("companions") or {}).get(release) or {} for release, _ in _columns(summary)}
    names = sorted({name for found in per_release.values() for name in found})
    if not names:
        return []
    by_name = {name: [(release, found.get(name, "not imported")) for release, found in per_release.items()]
               for name in names}
    said = []
    for name, seen in sorted(by_name.items()):
        runs: list[list[str]] = []  # [version, first release, last release], releases in a row with one version
        for release, version in seen:
            if runs and runs[-1][0] == version:
                runs[-1][2] = release
            else:
                runs.append([version, release, release])
        if len(runs) == 1:
            said.append(f"{name} {runs[0][0]} throughout")
        else:
            said.append(f"{name} " + ", ".join(f"{v} ({a}{'' if a == b else f' .. {b}'})" for v, a, b in runs))
    return [f"Companions, as each release's environment resolved them: {'; '.join(said)}.", ""]


NOT_RUN = ("skipped", "harness-error")
MEASURED_NOTHING = (*NOT_RUN, "unsupported")  # a column of only these ran none


def unfinished(matrix: MatrixDoc, columns: list[tuple[str, str]]) -> dict[str, list[int]]:
    """Per column with cells that did not run (skipped, or the harness failed them): how many, of how
    many; a column where no cell measured anything (every one unsupported too: jax 0.4.35 failing at
    `import jax`) ran none. A column a resumed sweep finished later is not listed, whatever the first part
    said of it."""
    found = {}
    for _, env in columns:
        cells = [row[env] for row in matrix["cells"].values() if env in row]
        missing = sum(1 for cell in cells if cell.get("status") in NOT_RUN)
        if cells and all(cell.get("status") in MEASURED_NOTHING for cell in cells):
            missing = len(cells)
        if missing:
            found[env] = [missing, len(cells)]
    return found


def runtime_costs(matrix: MatrixDoc, columns: list[tuple[str, str]]) -> dict[str, dict[str, int]]:
    """Per release, what the framework's runtime itself took on the GPU (CUDA context and libraries,
    measured in every GPU cell before the scenario's own work): the cells' lowest, median and highest."""
    found = {}
    for release, env in columns:
        costs = sorted(cost for row in matrix["cells"].values()
                       if (cell := row.get(env)) and cell.get("status") == Status.OK and (cost := cell.get("runtime_cost")))
        if costs:
            found[release] = {"min": costs[0], "median": costs[len(costs) // 2], "max": costs[-1], "cells": len(costs)}
    return found


def _runtime_row(costs: dict[str, dict[str, int]], releases: list[str]) -> list[str]:
    """The runtime's own cost as a row of its own: one column per release, a range where cells differ."""
    def text(cost: dict[str, int]) -> str:
        spread = "" if cost["min"] == cost["max"] else f" ({human_bytes(cost['min'])}-{human_bytes(cost['max'])})"
        return human_bytes(cost["median"]) + spread
    shown = [r for r in releases if r in costs]
    return ["| | " + " | ".join(shown) + " |", "|---|" + "---|" * len(shown),
            "| runtime's own GPU memory (CUDA context and libraries; median of the cells) | "
            + " | ".join(text(costs[r]) for r in shown) + " |", ""]


def kept(run_dir: Path, matrix: MatrixDoc) -> SweepSummary | None:
    """A re-render's sweep summary (None outside a sweep): its changes re-judged on ``matrix``."""
    try:
        summary: SweepSummary = results.read_sweep(run_dir)
    except (OSError, ValueError):
        return None
    if "columns" not in summary:  # a sweep still running (or cut): only its request is kept so far
        return None
    judge(summary, matrix, repeat_cells(run_dir))
    results.write_json(run_dir / "sweep.json", summary)
    results.write_text(run_dir / "sweep.md", markdown(summary))
    return summary


def markdown(summary: SweepSummary) -> str:
    lines = [f"### Sweep of {summary['package']} {summary['from']} .. {summary['to']} (every {summary['every']})", "",
             f"{len(summary['releases'])} releases: {', '.join(summary['releases'])}.", ""]
    if summary.get("machine"):
        lines += [f"Measured on: {summary['machine']}.", ""]
    if summary.get("fixed"):
        lines += [f"Held fixed in every column: {', '.join(f'`{p}`' for p in summary['fixed'])}.", ""]
    lines += _companion_lines(summary)
    made = summary.get("prepare_s") or {}
    if made:
        each = ", ".join(f"{release} {made[pin]:.0f} s" for release, pin in _columns(summary) if pin in made)
        lines += [f"Environments made (or found ready): {each}.", ""]
    if "wall_s" in summary:
        parts = summary.get("parts", 1)
        resumed = f", in {parts} parts (resumed)" if parts > 1 else ""
        lines += [f"The whole sweep took {summary['wall_s']:.0f} s{resumed}.", ""]
    elif "part_wall_s" in summary:
        lines += [f"Its last part took {summary['part_wall_s']:.0f} s (resumed; the earlier parts' time is not "
                  "recorded).", ""]
    skipped, left = summary["skipped"], summary.get("unfinished")
    shown = [pin for pin in skipped if left is None or pin in left]  # a sweep.json from before "unfinished": all
    for pin in sorted(shown, key=[pin for _, pin in _columns(summary)].index):
        why = skipped[pin].splitlines()[0] if skipped[pin] else "skipped"
        missing, cells = left[pin] if left else (0, 0)
        lines.append(f"- {pin}: {f'{missing} of {cells} cells ' if missing < cells else ''}not run ({why})")
    lines += [""] if shown else []
    for change in [c for c in summary["changes"] if c.get("kind") != "amount"]:  # amounts say themselves below
        between = change.get("between") or []
        where = (f"between {change['before_release']} and {change['release']} (no comparable answer in "
                 f"{', '.join(between)})" if between else f"in {change['release']}")
        runs = change.get("runs_each")
        lines.append(f"- `{change['scenario']}` changed {where}: {change['before_release']} "
                     f"{change['before']} -> {change['release']} {change['after']}"
                     + (f"; {turns.candidate_words((runs[0], runs[1]))}" if runs else ""))
    for change in summary.get("unsettled") or []:
        before, after = change.get("runs_each") or [1, 1]
        lines.append(f"- `{change['scenario']}` between {change['before_release']} and {change['release']}: no turn, "
                     f"the runs disagree (a run of one side gave the other's answer; {change['before_release']} "
                     f"{change['before']} in {before} run{'s' if before != 1 else ''}, {change['release']} "
                     f"{change['after']} in {after})")
    lines += amounts.lines(summary.get("amounts") or [])
    ran = releases_run(summary)
    if len(ran) < 2:
        lines.append(f"- {_too_few(ran)}")
    elif not summary["changes"]:
        lines.append("- no answer changed across these releases" + (" (what is left did, above: not yet a turn)"
                                                                    if summary.get("amounts") else ""))
    if summary.get("runtime"):
        lines += [""] + _runtime_row(summary["runtime"], summary["releases"])
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join([*lines, "", answer_line(summary)]) + "\n"


def releases_run(summary: SweepSummary) -> list[str]:
    """The releases with at least one cell run, in version order: only between these can an answer change."""
    skipped, left = summary.get("skipped") or {}, summary.get("unfinished")
    def none_ran(pin: str) -> bool:
        if left is None:  # a sweep.json from before "unfinished": a skipped release ran nothing
            return pin in skipped
        return pin in left and left[pin][0] >= left[pin][1]  # the matrix decides, whatever a part's skips said
    return [release for release, pin in _columns(summary) if not none_ran(pin)]


def _too_few(ran: list[str]) -> str:
    return (f"only {ran[0]} ran: nothing to compare it with, so no turn can be found" if ran
            else "no release ran: nothing was compared")


def answer_line(summary: SweepSummary) -> str:
    """sweep.md's last line: what the sweep found, in one line (a turn confirmed by its repeats counts;
    a candidate it could not confirm is said as one)."""
    ran = releases_run(summary)
    if len(ran) < 2:
        return f"Answer: {_too_few(ran)}."
    found = summary["changes"]
    span = f"{ran[0]} .. {ran[-1]}" + (f" (the {len(ran)} of {len(summary['releases'])} releases that ran)"
                                       if len(ran) < len(summary["releases"]) else "")
    open_ = [c for c in summary.get("amounts") or [] if c.get("confirmed") is None]
    maybe = [c for c in found if c.get("standing") == "candidate"]
    sure = [c for c in found if c not in maybe]
    parts = []
    if sure:
        parts.append(f"{len(sure)} turn{'s' if len(sure) != 1 else ''}: " + _where(sure))
    if maybe:
        parts.append(f"{len(maybe)} candidate turn{'s' if len(maybe) != 1 else ''} (fewer than "
                     f"{turns.RUNS_TO_CONFIRM} runs a side agree): " + _where(maybe))
    said = "; ".join(parts) if found else f"no answer changed across {span}"
    if open_:
        said += f"; {len(open_)} change of what is left not confirmed (one run each side)"
    if unsettled := summary.get("unsettled"):
        said += (f"; {len(unsettled)} change{'s' if len(unsettled) != 1 else ''} of answer not named: the runs of a "
                 f"side disagree ({_where(unsettled)})")
    return f"Answer: {said}."


def _where(found: list[Change]) -> str:
    """Turns as the answer line names them: "`row` in release", one after another."""
    return "; ".join(f"`{c['scenario']}` in {c['release']}" for c in found)
