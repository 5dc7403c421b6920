"""`harness bisect SCRIPT --package P --good V1 --bad V2`: the first release where a script's memory turns."""
from __future__ import annotations

import argparse
from typing import Any

from rich.console import Console

from harness.cli.shared import build_options, nothing_ran, plain_events
from harness.common.errors import UsageError
from harness.measurement.nvml import Nvml
from harness.running import bisection
from harness.running.bisect_run import BisectOptions, run_bisect
from harness.running.matrix import MatrixOptions


def main(args: argparse.Namespace, err: Console, out: Console) -> int:
    if args.backend == "process":
        raise UsageError("bisect makes an environment per release: use --backend docker or venv, not process")
    criterion = bisection.Criterion.make(args.criterion, args.threshold, args.label)
    matrix = MatrixOptions(variant=args.variant, results_root=args.results, timeout=args.timeout, build=build_options(args),
                           gpu_mode=args.gpu_mode, backend=args.backend, venv_root=args.venv_dir, setenv=dict(args.setenv),
                           index_url=args.index_url, cluster=args.cluster)
    options = BisectOptions(script=args.script, package=args.package, good=args.good, bad=args.bad, criterion=criterion,
                            pre=args.pre, matrix=matrix)
    err.print(f"criterion: {criterion.describe()}", markup=False)
    events = plain_events(err)

    def emit(kind: str, data: dict[str, Any]) -> None:
        if kind == "releases":
            err.print(f"{len(data['versions'])} releases of {data['package']}: {', '.join(data['versions'])}", markup=False)
        elif kind == "version":
            err.print(f"[bold]{args.package} {data['version']}[/]")
        else:
            events(kind, data)

    nvml = Nvml.open()
    try:
        run = run_bisect(options, nvml, emit)
    finally:
        nvml.close()
    text = (run.run_dir / "bisect.md").read_text(encoding="utf-8")
    print(text, end="")
    err.print(f"written: {run.run_dir / 'bisect.md'}, bisect.json, matrix.md, report.html")
    if run.outcome.first_bad is not None:
        return 0
    return nothing_ran(run.records, err) or 1
