"""`harness sweep --package P --from V1 --to V2`: the package's releases as one matrix's columns."""
from __future__ import annotations

import argparse
from contextlib import closing

from rich.console import Console

from harness.cli.shared import nothing_ran, per_release_matrix, release_events
from harness.common.errors import UsageError
from harness.measurement.nvml import Nvml
from harness.running.sweep_run import SweepOptions, resumed, run_sweep, widened


def main(args: argparse.Namespace, err: Console, out: Console) -> int:
    matrix = per_release_matrix(args, "sweep", scenarios=args.scenario)
    if args.resume is not None:
        options = resumed(args.resume, matrix)
        if args.low or args.high:  # a kept sweep widened: only the new releases' cells run
            options = widened(options, args.low, args.high)
    else:
        if not (args.package and args.low and args.high):
            raise UsageError("sweep needs --package, --from and --to (or --resume RUN_DIR)")
        options = SweepOptions(package=args.package, low=args.low, high=args.high, every=args.every, pre=args.pre,
                               script=args.script, matrix=matrix, repeat=max(1, args.repeat))
    emit = release_events(err, options.package)

    with closing(Nvml.open()) as nvml:
        run = run_sweep(options, nvml, emit)
    print((run.run_dir / "sweep.md").read_text(encoding="utf-8"), end="")
    err.print(f"written: {run.run_dir / 'sweep.md'}, sweep.json, matrix.md, matrix.json, report.html", markup=False)
    return nothing_ran(run.records, err) or 0
