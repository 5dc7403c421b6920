"""`harness history`: every framework's releases swept in turn on this host (matrix/history.toml)."""
from __future__ import annotations

import argparse
from contextlib import closing

from rich.console import Console

from harness.cli.shared import per_release_matrix, release_events
from harness.measurement.nvml import Nvml
from harness.running import history
from harness.store import results


def main(args: argparse.Namespace, err: Console, out: Console) -> int:
    parts = history.chosen(history.load(args.file), args.only)
    matrix = per_release_matrix(args, "history")
    if args.plan:
        for part, found in history.plan(parts, matrix):
            said = f"{len(found)} releases: {', '.join(found)}" if isinstance(found, list) else f"cannot: {found}"
            out.print(f"{part.label}: {said}", markup=False, soft_wrap=True)
        return 0
    folder = args.resume or args.results / f"history-{results.new_run_id()}"
    folder.mkdir(parents=True, exist_ok=True)
    emit = release_events(err, "")
    err.print(f"history: {len(parts)} sweeps into {folder}", markup=False)
    with closing(Nvml.open()) as nvml:
        summary = history.run_history(parts, matrix, folder, nvml, emit, repeat=max(1, args.repeat))
    print((folder / "history.md").read_text(encoding="utf-8"), end="")
    err.print(f"written: {folder / 'history.md'}, history.json", markup=False)
    return 1 if any("error" in part for part in summary["sweeps"]) else 0

