"""`harness repro SCRIPT`: a bug report's script, unmodified, in each environment that fits; a Markdown block last."""
from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from rich.console import Console

from harness.cli.shared import asked_for, command_line_envs, matrix_options, nothing_ran, plain_events
from harness.common.errors import UsageError
from harness.definitions import config
from harness.measurement.nvml import Nvml
from harness.running import catalogue, launch, repro
from harness.running.matrix import run_matrix
from harness.running.report_file import is_report
from harness.store import results


def python2_possible(args: argparse.Namespace, envs: dict[str, config.EnvDef], names: list[str]) -> bool:
    """Whether an environment that will run the script may be Python 2, whose scripts this Python
    cannot compile: a Python 2 environment, a python2 interpreter, or an image (its Python is unknown here)."""
    return (bool(args.image) or any("python2" in Path(p).name for p in args.interpreter)
            or any(envs[name].python_version.startswith("2") for name in names if name in envs))


def main(args: argparse.Namespace, err: Console, out: Console) -> int:
    report = None
    if is_report(args.script):  # a pasted bug report: its code, on the releases it states and on today's
        from harness.cli import repro_issue
        from harness.running import issue  # here: a report's readers (packaging) cost a plain script's start nothing

        report = issue.plan(args.script, args.results / "reports", args.block, args.index_url, args.replay_as)
        for line in repro_issue.stated_lines(report):
            err.print(line, markup=False, soft_wrap=True)
        args.script, args.with_pins = report.script, args.with_pins or report.pins
        args.pip = [*args.pip, *(p for p in report.unpinned if p not in args.pip)]
    elif args.block is not None or args.replay_as:
        flag = f"--block {args.block}" if args.block is not None else f"--as {args.replay_as}"
        raise UsageError(f"{flag}: {args.script} is a script, not a report (.md, .txt, or - for stdin)")
    named = bool(args.interpreter or args.image or args.env or (args.with_pins and report is None)
                 or (report is not None and report.subject))  # a report without a framework runs on its package's pins
    started = launch.parse(args.script, getattr(args, "rest", []))
    args.script = started.script
    item = replace(repro.script_scenario(started.script, args.timeout, plain=named, setenv=dict(args.setenv),
                                         cells=args.cells),
                   argv=started.argv, launch=started.launch, command=started.command)
    extra = command_line_envs(args, args.family or list(item.families))
    names = args.env
    envs = config.load_environments()
    if names is None and not extra and (not args.with_pins or report is not None):  # a report: today's beside its own
        names = [env.name for env in config.select(envs, None) if catalogue.applies(env, item)]
        if report is not None:
            names = issue.todays([envs[name] for name in names], report.imported) if report.imported else []
    if not item.notebook and not python2_possible(args, envs, names or []):
        repro.refuse_syntax_errors(args.script)
    python = report.python.version if report is not None and report.python and report.pins == args.with_pins else ""
    options = matrix_options(args, envs=names, extra_envs=extra, items=[item], with_python=python,
                             run_id=results.new_run_id())
    if report is not None:  # kept first: a run stopped by Ctrl-C and resumed later still answers the report
        from harness.running import issue_saved

        issue_saved.save(report, options.results_root / options.run_id)
    nvml = Nvml.open()
    try:
        run = run_matrix(options, nvml, plain_events(err))
    finally:
        nvml.close()
    from harness.judgement import failures
    from harness.reporting import render, repro_md

    records = sorted(run.records, key=lambda r: run.matrix["environments"].index(r["env"]["name"]))
    for record in records:
        if repro_md.never_ran(record):
            out.print("\n".join(repro_md.not_run_section(record)), markup=False)
        else:
            out.print(render.checkpoint_table(record))
    from harness.cli import repro_issue

    block, answers = repro_issue.write_block(run.run_dir, records, args.script, run.matrix)
    print(block, end="")
    if not sys.stdout.isatty():  # the block went to a file or a pipe: its answer is said where the user reads
        for line in answers:
            err.print(line, markup=False, soft_wrap=True)
    err.print(f"written: {run.run_dir / 'repro.md'}, and report.html (a timeline per environment)")
    status = nothing_ran(records, err, asked_for(args))
    lacking = sorted({why for r in records if (why := failures.missing_module(r))})
    for why in lacking:  # the environment's want, not the release's answer: said, and the run is not a success
        err.print(f"[red]not every environment ran the script[/]: {why}", soft_wrap=True)
    return max(status, 4) if lacking and status == 0 else status
