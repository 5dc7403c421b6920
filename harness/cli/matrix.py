"""`harness matrix`: every scenario in every applicable environment, with a progress bar and the matrix at the end."""
from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Mapping
from typing import Any, cast

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text

from harness.cli.fallbacks import FallbackLines
from harness.cli.report import repro_run, write_repro_md
from harness.cli.shared import (
    asked_for,
    command_line_envs,
    ipython_line,
    matrix_options,
    nothing_ran,
    show_matrix,
    warn_unreadable,
)
from harness.common import events
from harness.common.errors import UsageError
from harness.measurement.nvml import Nvml
from harness.model.record import CellRecord
from harness.reporting import render
from harness.running.matrix import run_matrix
from harness.running.resume import resume_options


def main(args: argparse.Namespace, err: Console, out: Console) -> int:
    if args.interpreter and not args.family:
        raise UsageError("--interpreter needs --family (torch, tf1, tf2, jax, cupy): which scenarios apply")
    options = matrix_options(args, envs=args.env, scenarios=args.scenario, extra_envs=command_line_envs(args, args.family))
    if args.resume is not None:
        options = resume_options(args.resume, options)
    nvml = Nvml.open()
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        console=err, transient=False)
    task = progress.add_task("cells", total=None)
    fallbacks = FallbackLines()

    def say_fallbacks(lines: list[str]) -> None:
        for line in lines:
            err.print(Text.assemble((line[:10], "yellow"), line[10:]), soft_wrap=True)  # "virtualenv" coloured

    def emit(kind: str, data: Mapping[str, Any]) -> None:
        say_fallbacks(fallbacks.due(kind))
        if kind == "intent":  # first, before a minute of builds: what this run does here, and why
            intent = cast(events.Intent, data)
            err.print(f"variant: [bold]{intent['variant']}[/], each environment's {intent['variant'].upper()} build "
                      f"({intent['reason']})", soft_wrap=True)
            n, m = intent["scenarios"], len(intent["envs"])
            err.print(f"plan: {n} scenario{'s' * (n != 1)} in {m} environment{'s' * (m != 1)} ({', '.join(intent['envs'])});"
                      " each environment is made or found first, then every cell runs", markup=False, soft_wrap=True)
        elif kind == "plan":
            plan = cast(events.Plan, data)
            if plan["variant"] == "gpu":  # without a GPU there is no access to speak of
                err.print(f"GPU access for containers: [bold]{plan['gpu_mode']}[/] ({plan['gpu_note']})")
            workers = Counter(plan["workers"])  # a slot each: "cpu" twice for two at a time, "GPU 0, GPU 1"
            on = ", ".join(f"{n} at a time on the CPU" if w == "cpu" else f"{n} x {w}" if n > 1 else str(w)
                           for w, n in workers.items())
            err.print(f"{plan['cells']} cells in {', '.join(plan['envs'])} on {on} -> {plan['run_dir']}")
            progress.update(task, total=plan["cells"])
            progress.start()  # only once there is something to show: an early error prints alone
        elif kind == "build":
            err.print(f"building {cast(events.Build, data)['tag']} ...")
        elif kind == "backend":
            backend = cast(events.Backend, data)
            err.print(f"backend: [bold]{backend['backend']}[/] ({backend['reason']})")
        elif kind == "skipped":
            skipped = cast(events.EnvReason, data)
            err.print(f"[yellow]skipped[/] {skipped['env']}: {skipped['reason']}", soft_wrap=True)  # one whole line
        elif kind == "fallback":
            say_fallbacks(fallbacks.add(data))
        elif kind == "failed":
            failed = cast(events.EnvReason, data)
            err.print(f"[red]failed[/] {failed['env']}: {failed['reason']}", markup=True, soft_wrap=True)
        elif kind == "gpu-code":
            err.print(cast(events.Text, data)["text"], markup=False, soft_wrap=True)
        elif kind == "ipython":
            err.print(ipython_line(cast(events.IPython, data)), markup=False)
        elif kind == "venv":
            venv = cast(events.Venv, data)
            err.print(f"{venv['env']}: virtualenv {'reused' if venv['reused'] else 'made'} ({venv['python']})")
        elif kind == "detected":
            detected = cast(events.Detected, data)
            err.print(f"{detected['env']}: API families detected inside the image: {', '.join(detected['families'])}")
        elif kind == "build-log":
            progress.console.print(f"  {cast(events.Text, data)['text']}", markup=False, highlight=False)
        elif kind == "cell-start":
            start = cast(events.CellStart, data)
            progress.update(task, description=f"{start['env']} / {start['scenario']}")
        elif kind == "cell-done":
            progress.console.print(render.summary_line(cast(CellRecord, data)))  # the record, as the runner sent it
            progress.advance(task)

    try:
        run = run_matrix(options, nvml, emit)
    finally:
        progress.stop()
        nvml.close()
        say_fallbacks(fallbacks.lines())  # a run that stopped before its plan still says them
    if args.resume is not None and repro_run(run.run_dir):  # a repro run finished: its repro.md, as repro writes it
        write_repro_md(run.run_dir, run.records, run.matrix)
        err.print(f"written: {run.run_dir / 'repro.md'}")
    show_matrix(run.matrix, args.json, out, words_at=f"{run.run_dir / 'matrix.md'} (report.html: each cell's timeline)")
    warn_unreadable(run.matrix, err)
    err.print(render.matrix_summary(run.matrix), soft_wrap=True)  # one line a script or a test can find whole
    bad = [r for r in run.records if r["status"] not in ("ok", "unsupported")]
    where = run.run_dir / "matrix.md"
    err.print(f"{len(run.records)} cells, {len(bad)} not ok, {run.wall_s:.1f}s; written: {where}, matrix.json, report.html")
    return nothing_ran(run.records, err, asked_for(args))
