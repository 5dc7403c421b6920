"""`harness report RUN_DIR [--compare OTHER]`: re-render a saved run from its records."""
from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

from harness.cli.shared import show_matrix, warn_unreadable
from harness.common.errors import UsageError
from harness.judgement.cell import read_judged
from harness.model.judged import MatrixDoc
from harness.model.record import CellRecord
from harness.reporting import aggregate, render
from harness.store import results


def repro_run(run_dir: Path) -> bool:
    """A run `repro` made (its manifest's request names the script; a pasted report's keeps its plan)."""
    from harness.running import issue_saved

    if (run_dir / issue_saved.NAME).is_file():
        return True
    try:
        return bool(results.read_manifest(run_dir)["request"].get("items"))
    except (OSError, ValueError, KeyError, AttributeError):
        return False


def write_repro_md(run_dir: Path, records: list[CellRecord], matrix: MatrixDoc) -> None:
    """A repro run's repro.md written again whole, as repro writes it (a pasted report's section included)."""
    from harness.cli import repro_issue

    script = Path(records[0]["scenario"].get("path") or run_dir) if records else run_dir
    repro_issue.write_block(run_dir, records, script, matrix)


def main(args: argparse.Namespace, err: Console, out: Console) -> int:
    for folder in (args.run_dir, args.compare):
        if folder is not None and not (folder / "manifest.json").is_file() and not results.record_paths(folder):
            raise UsageError(f"{folder} holds no results (give a run folder such as results/<run-id>)")
    judged = read_judged(args.run_dir)
    matrix = aggregate.write_reports(args.run_dir, compare_with=args.compare, judged=judged)
    if (args.run_dir / "repro.md").is_file() or repro_run(args.run_dir):  # a repro run: its Markdown block too
        write_repro_md(args.run_dir, judged[0], matrix)
    compared = matrix.get("compare")
    if compared:
        for pair in compared["pairs"]:
            err.print(f"compared {pair['env']} with {pair['other_env']} of {compared['other']} ({pair['by']})",
                      markup=False)
    show_matrix(matrix, args.json, out)
    warn_unreadable(matrix, err)
    err.print(f"{render.matrix_summary(matrix)}; written: matrix.md, matrix.json, report.html in {args.run_dir}",
              soft_wrap=True)
    return 0
