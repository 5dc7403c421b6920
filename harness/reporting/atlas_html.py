"""The atlas's pages: static HTML, no network, working from a file:// URL or as a Pages folder.

index.html is the landing grid (a row per technique with the claim it tests, a column per
framework release and hardware, each cell coloured by what came back, the release where an
answer turns marked, a filter box); t/<technique>.html and r/<column>.html list the evidence behind
each cell (every run of it, its environment, the command that remakes it, a link to its timeline
in the run's own report); claims.html says where each seed claim was confirmed, contradicted or not reproduced.
"""
from __future__ import annotations

import html
import re
from collections import Counter
from typing import Any

from harness.judgement.claims import Claim
from harness.reporting.atlas import Cell, ClaimOutcome, column_sort_key, columns, consensus, measured, turns
from harness.reporting.report_html import ASSETS

STYLE = (ASSETS / "atlas.css").read_text(encoding="utf-8")

LEGEND = ('<div class="legend"><span class="back-all">all back</span><span class="back-part">part back (or grew in a '
          'loop)</span><span class="back-none">none back</span><span class="back-na">n/a (did not measure a cleanup)'
          '</span><span style="box-shadow:inset 3px 0 0 #7b2ff7">the answer turns at this release</span>'
          '<span class="split">runs of this cell disagree</span></div>')

FILTER = "<script>" + (ASSETS / "atlas.js").read_text(encoding="utf-8") + "</script>"


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_")


def page(title: str, body: str, depth: int = 0) -> str:
    home = "../" * depth
    nav = (f'<p class="note"><a href="{home}index.html">grid</a> · <a href="{home}claims.html">claims</a> · '
           f'<a href="{home}atlas.json">atlas.json</a> · <a href="{home}atlas.csv">atlas.csv</a></p>')
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, '
            f'initial-scale=1"><title>{html.escape(title)}</title><style>{STYLE}</style></head><body>'
            f"<h1>{html.escape(title)}</h1>{nav}{body}</body></html>\n")


def evidence_link(cell: Cell, depth: int) -> str:
    """The cell in its run's own report: its timeline, checkpoints and environment."""
    from urllib.parse import quote

    return f"{'../' * depth}runs/{cell.run}/report.html#cell={quote(cell.report_key, safe='')}"


def _cell_td(cells: list[Cell], col: str, turned: bool) -> str:
    """A grid cell: the colour and the word of one answer, the one most of its measured runs gave
    (ties: the first run's), so colour and word always come from the same run; measured runs that
    disagree stripe it. A copy of a run counts once; runs that did not measure (skipped, harness
    failures) are named in the title, never counted as runs or as disagreement."""
    runs = measured(cells)
    shown = consensus(cells) or cells[0]
    split = len({c.back for c in runs}) > 1
    title = " | ".join(f"{c.run} ({c.backend}): {c.word}" for c in cells)
    target = evidence_link(shown, 0) if len(cells) == 1 else f"t/{slug(shown.technique)}.html#{slug(col)}"
    short = html.escape(_shortened(shown.word, 60))
    more = f" (+{len(runs) - 1} run{'s' if len(runs) > 2 else ''})" if len(runs) > 1 else ""
    back = shown.back if runs else "n/a"
    classes = f"c back-{back.replace('/', '')}" + (" turn" if turned else "") + (" split" if split else "")
    return f'<td class="{classes}" title="{html.escape(title)}"><a href="{html.escape(target)}">{short}{more}</a></td>'


def _shortened(text: str, limit: int) -> str:
    """At most ``limit`` characters, cut at a word, never inside a number ("138.…")."""
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + "…"


def _table(framework: str, techniques: list[str], grid: dict[str, dict[str, list[Cell]]], cols: list[str],
           said: dict[str, list[Claim]]) -> str:
    """One framework's grid: its techniques by its releases and hardware."""
    head = "".join(f'<th class="col"><a href="r/{slug(col)}.html">{html.escape(col.split(" ", 1)[1].split(" · ")[0])}'
                   f'</a><div class="hw">{html.escape(col.split(" · ")[1])}</div></th>' for col in cols)
    rows = []
    for technique in techniques:
        claim_html = "".join(f'<div class="claim">{html.escape(c.says)} ({html.escape(c.seed)})</div>'
                             for c in said.get(technique, []))  # every claim on the technique, not one of them
        turned = turns(grid[technique], cols)
        tds = "".join(_cell_td(grid[technique][c], c, c in turned) if c in grid[technique] else "<td></td>" for c in cols)
        rows.append(f'<tr class="row"><th class="tech"><a href="t/{slug(technique)}.html">{html.escape(technique)}</a>'
                    f"{claim_html}</th>{tds}</tr>")
    return (f'<section class="fw"><h2>{html.escape(framework)}</h2><div class="scroll"><table class="grid">'
            f'<tr><th class="tech">technique</th>{head}</tr>{"".join(rows)}</table></div></section>')


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
        tables.append(_table(framework, mine, grid, used, said))
    runs = len({c.run for c in cells})
    distinct = sum(len(measured(column)) for row in grid.values() for column in row.values())
    unmeasured = sum(1 for c in cells if c.status != "ok")
    releases = len({(c.framework, c.release) for c in cells})
    intro = (f'<p class="note">{distinct} measured runs of a cell (copies counted once) from {runs} reference runs, '
             f"and {unmeasured} that measured nothing (skipped, failed, not finished): {len(grid)} techniques, "
             f"{releases} framework releases, {len(cols)} columns of a release on its hardware. "
             "Each cell: did the memory come back (its colour) and why "
             "(its words); a click opens the timeline and environment it was judged from.</p>")
    body = (intro + LEGEND + '<p><input id="filter" placeholder="filter: torch, 2.15, H100, CPU, empty_cache ..."></p>'
            + "".join(tables) + FILTER)
    return page("GPU memory cleanup atlas", body)


FACTS = ("run", "backend", "image", "definition_hash", "python", "cuda", "hardware", "driver", "date")


def _evidence_rows(cells: list[Cell], key: str, depth: int) -> str:
    out = []
    for cell in cells:
        facts = "".join(f"<td>{html.escape(str(getattr(cell, f))[:40])}</td>" for f in FACTS)
        steps = "; ".join(f"{s.get('label')}: {s.get('verdict')}" for s in cell.steps if s.get("verdict") != "skipped")
        remake = f"nox -s report -- matrix/reference/{cell.run}"
        out.append(f'<tr id="{slug(getattr(cell, key))}"><td>{html.escape(getattr(cell, key))}</td>'
                   f'<td class="back-{cell.back.replace("/", "")}">{html.escape(cell.word)}</td>'
                   f"<td>{html.escape(steps)}</td>{facts}<td><a href=\"{html.escape(evidence_link(cell, depth))}\">timeline"
                   f"</a></td><td><code>{html.escape(remake)}</code></td></tr>")
    return "".join(out)


def _order(cells: list[Cell], key: str) -> Any:
    """How evidence rows sort: columns as the grid orders them (releases as versions: 2.7.4 before
    2.21.0), anything else as text; runs of one cell side by side."""
    if key != "column":
        return lambda c: (getattr(c, key), c.run)
    rank = {col: i for i, col in enumerate(columns(cells))}
    return lambda c: (rank[c.column], c.run)


def evidence(title: str, cells: list[Cell], key: str, extra: str = "") -> str:
    """A technique's (key: column) or a release's (key: technique) every measured cell, runs side by side."""
    answers = Counter(c.back for c in cells)
    agree = ", ".join(f"{n} {b}" for b, n in answers.most_common())
    head = "".join(f"<th>{h}</th>" for h in (key, "answer", "steps", *FACTS, "evidence", "remade by"))
    body = (extra + f'<p class="note">{len(cells)} measured cells ({agree}); where runs of one cell disagree both are '
            f'listed, never averaged.</p><div class="scroll"><table><tr>{head}</tr>'
            f"{_evidence_rows(sorted(cells, key=_order(cells, key)), key, 1)}</table></div>")
    return page(title, body, depth=1)


def claims_page(claims: list[Claim], outcomes: list[ClaimOutcome]) -> str:
    by_claim: dict[str, list[ClaimOutcome]] = {}
    for outcome in outcomes:
        by_claim.setdefault(outcome.claim, []).append(outcome)
    items = []
    for claim in claims:
        found = by_claim.get(claim.id, [])
        counts = Counter(f.outcome for f in found)
        where = "".join(f"<li>{f.outcome} in {html.escape(f.column)} ({html.escape(f.run)}): {html.escape(f.why)}</li>"
                        for f in sorted(found, key=lambda f: (f.outcome, column_sort_key(f.column))))
        items.append(f'<li id="{slug(claim.id)}"><b>{html.escape(claim.says)}</b> ({html.escape(claim.seed)}, '
                     f'<a href="t/{slug(claim.scenario)}.html">{html.escape(claim.scenario)}</a>): '
                     f"{counts['confirmed']} confirmed, {counts['contradicted']} contradicted, "
                     f"{counts['not reproduced']} not reproduced"
                     + (f"<ul>{where}</ul>" if where else " (no reference run decides it yet)") + "</li>")
    return page("Claims from the seed articles", f"<ol>{''.join(items)}</ol>")


def summary(cells: list[Cell], cols: list[str], grid: dict[str, Any]) -> dict[str, int]:
    return {"cells": len(cells), "techniques": len(grid), "columns": len(cols),
            "releases": len({(c.framework, c.release) for c in cells}), "runs": len({c.run for c in cells})}
