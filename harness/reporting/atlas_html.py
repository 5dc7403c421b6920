"""The atlas's pages: static HTML, no network, working from a file:// URL or as a Pages folder.

index.html is the landing grid (a row per technique with the claim it tests, a column per
framework release and hardware, each cell coloured by what came back, the release where an
answer turns marked, a filter box); t/<technique>.html and r/<column>.html list the evidence behind
each cell (every run of it, its environment, the command that remakes it, a link to its timeline
in the run's own report); claims.html says where each seed claim was confirmed, contradicted or not reproduced.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import asdict
from typing import Any

from markupsafe import Markup

from harness import frameworks
from harness.judgement import answer, palette
from harness.judgement import claims as seed_claims
from harness.judgement.claims import Claim
from harness.judgement.turns import candidate_words, confirmed
from harness.model.record import Status
from harness.reporting import templates
from harness.reporting.atlas import Cell, ClaimOutcome, column_sort_key, columns, grid_id, lane_of, release_of
from harness.reporting.atlas_answers import answer_of, consensus, measured, turn_runs

STYLE = (templates.ASSETS / "atlas.css").read_text(encoding="utf-8") + palette.answer_css()  # the answers' colours: the judge's
FILTER = (templates.ASSETS / "atlas.js").read_text(encoding="utf-8")


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_")


def _render(template: str, title: str, depth: int = 0, **data: Any) -> str:
    """An atlas page from its template (templates.py: autoescaped Jinja2)."""
    return templates.render(template, title=title, depth=depth, style=STYLE, **data)


def evidence_link(cell: Cell, depth: int) -> str:
    """The cell in its run's own report: its timeline, checkpoints and environment."""
    from urllib.parse import quote

    return f"{'../' * depth}runs/{cell.run}/report.html#cell={quote(cell.report_key, safe='')}"


def grid_cell(cells: list[Cell], col: str, turn: tuple[int, int] | None, usual: str | None = None) -> dict[str, str]:
    """A grid cell: the colour and the word of one answer, the one most of its measured runs gave
    (ties: the newest run's), so colour and word always come from the same run; measured runs that
    disagree stripe it. A copy of a run counts once; runs that did not measure (skipped, harness
    failures) are named in the title, never counted as runs or as disagreement. ``turn``: the agreeing runs
    on each side where the row turns here (a candidate turn on fewer than RUNS_TO_CONFIRM); a cell of one
    measured run is marked so."""
    shown, runs, back = answer_of(cells)
    split = len({c.back for c in runs}) > 1
    other = usual is not None and bool(runs) and shown.params != usual  # ``usual``: the row's most common parameters
    return {"classes": f"c back-{back.replace('/', '')}" + ("" if turn is None else " turn" if confirmed(turn)
                                                              else " turn candidate") + (" split" if split else "")
            + (" params" if other else "") + (" one-run" if len(runs) == 1 else ""),
            "title": " | ".join(f"{c.run} ({c.backend}{', on a stand-in base' if c.stand_in else ''}"
                                f"{f', ran with {c.ran_with}' if c.ran_with else ''}): {c.word}" for c in cells)
            + (f" | ran with other parameters than the row's: {shown.params} (the row's: {usual})" if other else "")
            + (f" | {candidate_words(turn)}" if turn is not None else "") + (" | 1 measured run" if len(runs) == 1 else ""),
            "target": evidence_link(shown, 0) if len(cells) == 1 else f"t/{slug(shown.technique)}.html#{slug(col)}",
            "page": f"c/{grid_id(shown.technique, col)}.html",  # the cell's own page: its records, how to measure again
            "word": _shortened(shown.word, 60),
            "more": (f" (+{len(runs) - 1} run{'s' if len(runs) > 2 else ''})" if len(runs) > 1 else "")
            + (" (other parameters)" if other else "") + (f" {RAN_WITH_MARK}" if shown.ran_with else "")}


RAN_WITH_MARK = "†"  # a cell whose release ran otherwise than its own install would (atlas_how): said beside its answer
LOOP = re.compile(r"; in the loop: (grows|flat|unclear|small|ran twice|not seen)\b( [\d.]+ [KMGT]?i?B per iteration)?")


def _shortened(text: str, limit: int) -> str:
    """About ``limit`` characters, cut at a word, never inside a number ("138.…"); a loop's trend is
    kept after the cut, never cut away ("...; loop: grows 1.75 MiB/iteration")."""
    if len(text) <= limit:
        return text
    loop = LOOP.search(text)
    amount = (loop.group(2) or "").replace(" per iteration", "/iteration") if loop else ""
    trend = f"; loop: {loop.group(1)}{amount}" if loop else ""
    head = text[:loop.start()] if loop else text
    room = max(limit - len(trend), 36)  # the answer's head and its figure, then the trend
    if len(head) > room:
        head = head[:room].rsplit(" ", 1)[0].rstrip(",;:") + "…"
    return head + trend


def _table(framework: str, techniques: list[str], grid: dict[str, dict[str, list[Cell]]], cols: list[str],
           said: dict[str, list[Claim]]) -> dict[str, Any]:
    """One framework's grid: its techniques by its releases and hardware."""
    rows = []
    for technique in techniques:
        turned = turn_runs(grid[technique], cols)
        shown = [found for c in cols if c in grid[technique] and (found := consensus(grid[technique][c])) is not None]
        usual = Counter(c.params for c in shown).most_common(1)[0][0] if shown else None
        rows.append({"technique": technique, "slug": slug(technique),
                     "claims": said.get(technique, []),  # every claim on the technique, not one of them
                     "cells": [grid_cell(grid[technique][c], c, turned.get(c), usual) if c in grid[technique] else None
                               for c in cols]})
    heads: list[dict[str, str]] = []
    last: dict[tuple[str, str], str] = {}  # a lane's release in the column before
    known = frameworks.named(framework.split(" ", 1)[0]) is not None  # a script's bare Python has no releases to miss
    for col in cols:
        lane, release = lane_of(col), release_of(col)
        before = last.get(lane) if known else None
        how = sorted({c.ran_with for t in techniques for c in measured(grid[t].get(col) or []) if c.ran_with})
        heads.append({"slug": slug(col), "release": release, "hardware": lane[1],
                      "gap": f"releases between {before} and {release} were not measured on this hardware"
                      if before and not adjacent(before, release) else "",
                      "how": f"{RAN_WITH_MARK} ran with " + " | ".join(how) if how else ""})
        last[lane] = release
    return {"framework": framework, "columns": heads, "rows": rows}


def adjacent(before: str, after: str) -> bool:
    """Whether no minor release lies between two (1.12.1 and 1.13.1; 1.13.1 and 2.0.0; not 1.5.1 and 2.2.2): the next
    minor of the same major, the same minor again, or a new major's first minor."""
    try:
        (a_major, a_minor), (b_major, b_minor) = (tuple(int(x) for x in v.split("+")[0].split(".")[:2])
                                                  for v in (before, after))
    except ValueError:
        return True  # a release this cannot read: no mark rather than a wrong one
    return (b_major == a_major and b_minor - a_minor <= 1) or (b_major == a_major + 1 and b_minor == 0)


def landing(grid: dict[str, dict[str, list[Cell]]], cols: list[str], claims: list[Claim], cells: list[Cell]) -> str:
    """Caniuse-style: a table per framework, a row per technique, a column per release and hardware."""
    said: dict[str, list[Claim]] = {}
    for claim in claims:
        said.setdefault(claim.scenario, []).append(claim)
    framework_of = {c.technique: c.framework for c in cells}
    tables = []
    for framework in dict.fromkeys(framework_of[t] for t in sorted(grid, key=lambda t: cols.index(next(iter(grid[t]))))):
        mine = sorted((t for t in grid if framework_of[t] == framework), key=lambda t: (t.startswith("repro/"), t))
        used = [c for c in cols if any(c in grid[t] for t in mine)]
        for kind, here in (("GPU", [c for c in used if lane_of(c)[1] != "CPU"]),
                           ("CPU: host memory only", [c for c in used if lane_of(c)[1] == "CPU"])):
            rows = [t for t in mine if any(c in grid[t] for c in here)]
            if rows:  # GPU and CPU apart: a CPU reading answers another question (no GPU memory to give back)
                tables.append(_table(f"{framework} · {kind}", rows, grid, here, said))
    counts = {"runs": len({c.run for c in cells}),
              "distinct": sum(len(measured(column)) for row in grid.values() for column in row.values()),
              "unmeasured": sum(1 for c in cells if c.status != Status.OK), "techniques": len(grid),
              "releases": release_count(cells), "columns": len(cols)}
    keys = [(back.replace("/", ""), answer.SHORT[back], answer.LEGEND[back]) for back in answer.LEGEND]  # the judge's
    return _render("atlas_landing.html", "GPU memory cleanup atlas", tables=tables, counts=counts, script=FILTER, keys=keys)


FACTS = ("run", "backend", "image", "definition_hash", "python", "cuda", "hardware", "driver", "date", "ran_with")


def _evidence_rows(cells: list[Cell], key: str, depth: int) -> list[dict[str, Any]]:
    return [{"id": slug(getattr(cell, key)), "key": getattr(cell, key), "back": cell.back.replace("/", ""),
             "word": cell.word, "facts": [str(getattr(cell, f))[:40 if f != "ran_with" else None] for f in FACTS],
             "steps": "; ".join(f"{s.get('label')}: {s.get('verdict')}" for s in cell.steps if s.get("verdict") != "skipped"),
             "link": evidence_link(cell, depth), "remake": f"nox -s report -- matrix/reference/{cell.run}",
             "page": f"{'../' * depth}c/{grid_id(cell.technique, cell.column)}.html"}
            for cell in cells]


def _order(cells: list[Cell], key: str) -> Any:
    """How evidence rows sort: columns as the grid orders them (releases as versions: 2.7.4 before
    2.21.0), anything else as text; runs of one cell side by side."""
    if key != "column":
        return lambda c: (getattr(c, key), c.run)
    rank = {col: i for i, col in enumerate(columns(cells))}
    return lambda c: (rank[c.column], c.run)


def evidence(title: str, cells: list[Cell], key: str, tests: Claim | None = None,
             charts: list[tuple[str, str]] | None = None) -> str:
    """A technique's (key: column) or a release's (key: technique) every measured cell, runs side by
    side; ``tests``: the claim a technique's page says it tests; ``charts``: (caption, SVG) across releases."""
    answers = Counter(c.back for c in cells)
    shown = [(caption, Markup(svg)) for caption, svg in charts or []]  # SVG made by atlas_chart, its text escaped there
    return _render("atlas_evidence.html", title, depth=1, tests=tests, charts=shown,
                   heads=(key, "answer", "steps", *(f.replace("_", " ") for f in FACTS), "evidence", "remade by", "cell page"),
                   agree=", ".join(f"{n} {b}" for b, n in answers.most_common()),
                   rows=_evidence_rows(sorted(cells, key=_order(cells, key)), key, 1))


def claims_page(claims: list[Claim], outcomes: list[ClaimOutcome]) -> str:
    by_claim: dict[str, list[ClaimOutcome]] = {}
    for outcome in outcomes:
        by_claim.setdefault(outcome.claim, []).append(outcome)
    items = []
    for claim in claims:
        found = by_claim.get(claim.id, [])
        counts = Counter(f.outcome for f in found)
        items.append({"id": slug(claim.id), "says": claim.says, "seed": claim.seed, "scenario": claim.scenario,
                      "slug": slug(claim.scenario), "confirmed": counts["confirmed"],
                      "contradicted": counts["contradicted"], "not_reproduced": counts["not reproduced"],
                      "tally": seed_claims.tally([f.outcome for f in found]),
                      "where": [{**asdict(f), "page": f"c/{grid_id(claim.scenario, f.column)}.html"}
                                for f in sorted(found, key=lambda f: (f.outcome, column_sort_key(f.column)))]})
    return _render("atlas_claims.html", "Claims from the seed articles", claims=items)


def summary(cells: list[Cell], cols: list[str], grid: dict[str, Any]) -> dict[str, int]:
    return {"cells": len(cells), "techniques": len(grid), "columns": len(cols),
            "releases": release_count(cells), "runs": len({c.run for c in cells})}


def release_count(cells: list[Cell]) -> int:
    """The framework releases the atlas measured: a registered framework's (not a script's bare Python), by its
    public version (2.11.0 and 2.11.0+cu130 are one release), where at least one cell of it ran."""
    return len({(c.framework, c.release.split("+", 1)[0]) for c in cells
                if c.status == Status.OK and frameworks.named(c.framework) is not None})
