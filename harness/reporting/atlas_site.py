"""`atlas`: one static site from every committed reference run (see atlas.py, atlas_html.py).

Everything in it is made again from the records: the grid, a page per technique and per release,
the claims page, atlas.json and atlas.csv, and each run's own report.html (sharing one copy of
Vega), so the site and the data never disagree with the references they come from.
"""
from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness.judgement import claims as seed_claims
from harness.reporting import (
    aggregate,
    atlas,
    atlas_chart,
    atlas_data,
    atlas_html,
    atlas_pages,
    atlas_runs,
    atlas_schema,
    report_html,
    templates,
    upstream,
)


def build(root: Path, out: Path, progress: Callable[[str], None] = lambda _: None) -> dict[str, int]:
    """Write the atlas of the reference runs under ``root`` into ``out``; returns its counts."""
    claims = seed_claims.load_claims()
    runs = atlas_runs.reference_runs(root)
    cells, outcomes = atlas.collect(runs, claims)
    cols, grid = atlas.columns(cells), atlas.grid(cells)
    if out.exists():
        shutil.rmtree(out)
    for folder in ("t", "r", "c", "runs"):
        (out / folder).mkdir(parents=True)
    shutil.copyfile(templates.ASSETS / "vega-embed.js", out / "vega.js")
    rows = atlas_data.grid_rows(grid, cols)
    commit = atlas_pages.commit_of(root)
    (out / "atlas.json").write_text(atlas_data.as_json(cells, rows, commit), encoding="utf-8")
    (out / "atlas.schema.json").write_text(json.dumps(atlas_schema.atlas_schema(), indent=1) + "\n", encoding="utf-8")
    (out / "atlas.csv").write_text(atlas_data.as_csv(rows, atlas_data.GRID_SCHEMA), encoding="utf-8")
    (out / "index.html").write_text(atlas_html.landing(grid, cols, claims, cells), encoding="utf-8")
    (out / "claims.html").write_text(atlas_html.claims_page(claims, outcomes), encoding="utf-8")
    found = atlas_pages.changes(grid, cols, upstream.load())
    (out / "changes.html").write_text(atlas_pages.changes_page(found), encoding="utf-8")
    said = {c.scenario: c for c in claims}
    every_claim: dict[str, list[seed_claims.Claim]] = {}
    for claim in claims:
        every_claim.setdefault(claim.scenario, []).append(claim)
    for technique, by_column in grid.items():
        for column, in_cell in by_column.items():
            (out / "c" / f"{atlas.grid_id(technique, column)}.html").write_text(
                atlas_pages.cell_page(technique, column, in_cell, every_claim.get(technique, []), commit), encoding="utf-8")
    for technique, by_column in grid.items():
        every = [cell for found in by_column.values() for cell in found]
        (out / "t" / f"{atlas_html.slug(technique)}.html").write_text(
            atlas_html.evidence(technique, every, "column", said.get(technique), atlas_chart.charts(by_column)),
            encoding="utf-8")
    for column in cols:
        every = [cell for by_column in grid.values() for cell in by_column.get(column, [])]
        (out / "r" / f"{atlas_html.slug(column)}.html").write_text(atlas_html.evidence(column, every, "technique"),
                                                                    encoding="utf-8")
    for run in runs:
        progress(f"report of {run.name}")
        matrix = aggregate.matrix_from(run.records, run.broken, run.name, aggregate.planned_cells(run.path))
        target = out / "runs" / run.name / "report.html"
        target.parent.mkdir(parents=True, exist_ok=True)
        depth = len(Path(run.name).parts) + 1
        target.write_text(report_html.render(matrix, run.records, vega_src="../" * depth + "vega.js"), encoding="utf-8")
    counts: dict[str, Any] = atlas_html.summary(cells, cols, grid)
    counts["bytes"] = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    return counts
