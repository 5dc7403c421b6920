"""The command line. The only place that prints, and the only place that catches HarnessError.

Progress and logs go to stderr (rich; plain when not a terminal or NO_COLOR is set); results
(tables, or JSON with --json) go to stdout.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, NoReturn

from rich.console import Console

from . import __version__, render, results, scenario
from .errors import HarnessError, UsageError


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line naming the cause and where to look."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _param(text: str) -> tuple[str, Any]:
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    key, raw = text.split("=", 1)
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw
    return key, value


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="harness", description="Does this cleanup really give GPU memory back?")
    parser.add_argument("--version", action="version", version=f"harness {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)

    run = sub.add_parser("run", help="run one scenario in one environment and show its checkpoints")
    run.add_argument("scenario", help="path to a scenario file")
    run.add_argument("--backend", choices=["process"], default="process")
    run.add_argument("--python", default=sys.executable, help="interpreter for the process backend")
    run.add_argument("--env-name", default=None, help="name for the environment in the record")
    run.add_argument("--timeout", type=float, default=None, help="seconds before the cell is killed")
    run.add_argument("--param", type=_param, action="append", default=[], help="scenario parameter KEY=VALUE")
    run.add_argument("--gpu", type=int, default=0, help="GPU index to measure (NVML order)")
    run.add_argument("--results", type=Path, default=Path("results"), help="results folder")
    run.add_argument("--json", action="store_true", help="print the record as JSON on stdout")
    return parser


def _console(stderr: bool) -> Console:
    return Console(stderr=stderr, no_color="NO_COLOR" in os.environ, highlight=False)


def cmd_run(args: argparse.Namespace, err: Console, out: Console) -> int:
    from .backends.process import ProcessBackend
    from .nvml import Nvml
    from .runner import CellOptions, run_cell

    if args.timeout is not None and args.timeout <= 0:
        raise UsageError(f"--timeout must be positive, got {args.timeout}")
    spec = scenario.load(args.scenario)
    backend = ProcessBackend(python=args.python)
    nvml = Nvml.open()
    if not nvml.available:
        err.print(f"[yellow]NVML unavailable:[/] {nvml.reason}; GPU readings are recorded as null, RSS only")
    run_id = results.new_run_id()
    run_dir = args.results / run_id
    options = CellOptions(
        run_id=run_id, run_dir=run_dir, env_name=args.env_name or Path(backend.python).name,
        env_facts={}, params=dict(args.param), timeout=args.timeout, gpu_index=args.gpu,
    )

    def progress(kind: str, data: dict[str, Any]) -> None:
        if kind == "checkpoint":
            r = data["readings"]
            err.print(f"  checkpoint {data['label']}: rss {render.human_bytes(r['rss'])}, "
                      f"gpu(process) {render.human_bytes(r['nvml_process'])}")

    try:
        record = run_cell(backend, spec, options, nvml, progress)
    finally:
        nvml.close()
    path = results.write_record(run_dir, record)
    results.write_manifest(run_dir, {"run_id": run_id, "tool_version": __version__, "argv": sys.argv[1:],
                                     "cells": [str(path.relative_to(run_dir))]})
    if args.json:
        print(json.dumps(record, indent=1, sort_keys=True, default=str))
    else:
        out.print(render.checkpoint_table(record))
        out.print(render.tolerance_line())
    err.print(render.summary_line(record))
    err.print(f"record: {path}")
    return 0 if record["status"] in ("ok", "unsupported") else 1


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    err, out = _console(stderr=True), _console(stderr=False)
    try:
        if args.command == "run":
            return cmd_run(args, err, out)
    except HarnessError as exc:
        err.print(f"harness: error: {exc.message}", markup=False, highlight=False)
        return exc.exit_code
    except KeyboardInterrupt:
        err.print("harness: interrupted; cells already finished are kept under results/")
        return 130
    raise AssertionError(f"unhandled command {args.command}")
