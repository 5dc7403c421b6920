"""`harness sweep --package P --from V1 --to V2`: the package's releases as one matrix's columns."""
from __future__ import annotations

import argparse
from typing import Any

from rich.console import Console

from harness.cli.shared import build_options, nothing_ran, plain_events
from harness.common.errors import UsageError
from harness.measurement.nvml import Nvml
from harness.running.matrix import MatrixOptions
from harness.running.sweep_run import SweepOptions, run_sweep


def main(args: argparse.Namespace, err: Console, out: Console) -> int:
    if args.backend == "process":
        raise UsageError("sweep makes an environment per release: use --backend docker or venv, not process")
    matrix = MatrixOptions(variant=args.variant, results_root=args.results, timeout=args.timeout, build=build_options(args),
                           gpu_mode=args.gpu_mode, backend=args.backend, venv_root=args.venv_dir, setenv=dict(args.setenv),
                           index_url=args.index_url, cluster=args.cluster, scenarios=args.scenario, jobs=args.jobs)
    options = SweepOptions(package=args.package, low=args.low, high=args.high, every=args.every, pre=args.pre,
                           script=args.script, matrix=matrix)
    events = plain_events(err)

    def emit(kind: str, data: dict[str, Any]) -> None:
        if kind == "releases":
            err.print(f"{len(data['versions'])} releases of {data['package']}: {', '.join(data['versions'])}", markup=False)
        else:
            events(kind, data)

    nvml = Nvml.open()
    try:
        run = run_sweep(options, nvml, emit)
    finally:
        nvml.close()
    print((run.run_dir / "sweep.md").read_text(encoding="utf-8"), end="")
    err.print(f"written: {run.run_dir / 'sweep.md'}, sweep.json, matrix.md, matrix.json, report.html", markup=False)
    return nothing_ran(run.records, err) or 0
