"""`harness bisect SCRIPT --package P --good V1 --bad V2`: the first release where a script's memory turns."""
from __future__ import annotations

import argparse
from contextlib import closing

from rich.console import Console

from harness.cli.shared import nothing_ran, per_release_matrix, release_events
from harness.common.errors import UsageError
from harness.judgement import criteria
from harness.measurement.nvml import Nvml
from harness.running.bisect_run import BisectOptions, run_bisect


def main(args: argparse.Namespace, err: Console, out: Console) -> int:
    if not args.package:
        raise UsageError("bisect needs --package P: the distribution whose releases are searched")
    criterion = criteria.Criterion.make(args.criterion, args.threshold, args.label)
    matrix = per_release_matrix(args, "bisect")
    options = BisectOptions(script=args.script, package=args.package, good=args.good, bad=args.bad, criterion=criterion,
                            pre=args.pre, matrix=matrix)
    err.print(f"criterion: {criterion.describe()}", markup=False)
    emit = release_events(err, args.package)

    with closing(Nvml.open()) as nvml:
        run = run_bisect(options, nvml, emit)
    text = (run.run_dir / "bisect.md").read_text(encoding="utf-8")
    print(text, end="")
    err.print(f"written: {run.run_dir / 'bisect.md'}, bisect.json, matrix.md, report.html")
    if run.outcome.first_bad is not None:
        return 0
    return nothing_ran(run.records, err) or 1
