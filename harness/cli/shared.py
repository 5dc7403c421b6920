"""What several commands share: consoles, build options, command-line environments, the 'nothing ran' exit."""
from __future__ import annotations

import argparse
import io
import json
import os
import sys
from collections.abc import Callable, Collection, Mapping
from typing import Any, cast

from rich.console import Console

from harness.cli.fallbacks import FallbackLines
from harness.cli.warm import after_cells
from harness.common import events
from harness.common.errors import UsageError
from harness.definitions import config
from harness.environments.images import BuildOptions
from harness.model.judged import MatrixDoc
from harness.model.record import CellRecord, Status, error_type

PIPE_WIDTH = 160  # the width of output that goes to no terminal, where COLUMNS does not say
RAN = {Status.OK, Status.ERROR, Status.UNSUPPORTED, Status.TIMEOUT, Status.CRASHED}  # its own code ran, whatever it came to


def console(stderr: bool) -> Console:
    stream = sys.stderr if stderr else sys.stdout
    # a log or a pipe: wide enough that a checkpoint's label and its verdict stay on one line (COLUMNS still rules)
    wide = None if "COLUMNS" in os.environ or stream.isatty() else PIPE_WIDTH
    return Console(stderr=stderr, no_color="NO_COLOR" in os.environ, highlight=False, width=wide)


def build_options(args: argparse.Namespace) -> BuildOptions:
    if args.wheelhouse is not None and not args.wheelhouse.is_dir():
        raise UsageError(f"--wheelhouse {args.wheelhouse} is not a folder (give a folder of .whl files)")
    if args.offline and args.wheelhouse is None:
        raise UsageError("--offline builds need --wheelhouse DIR: with no index, pip can only install from there")
    return BuildOptions(wheelhouse=args.wheelhouse, offline=args.offline, pull=args.pull, registry=args.registry)


def command_line_envs(args: argparse.Namespace, families: list[str]) -> list[config.EnvDef]:
    """The environments named on the command line (--image, --interpreter)."""
    from harness.environments.venvs import runnable  # here: not every command makes environments

    return config.distinct_names([config.adhoc_image(ref, families) for ref in args.image]
                                 + [config.adhoc_interpreter(runnable(py), families) for py in args.interpreter])


def asked_for(args: argparse.Namespace) -> set[str]:
    """The environments --with asked to be made: one that cannot be made here (no wheel for this
    platform, no base for it) is a failure, not a skip. An --env whose Python is absent stays a skip."""
    if not args.with_pins:
        return set()
    from harness.environments import pins  # here: packaging costs every command's start ~70 ms

    return {",".join(str(r) for r in pins.parse(text)) for text in args.with_pins}


def nothing_ran(records: list[CellRecord], err: Console, asked: Collection[str] = ()) -> int:
    """Exit 3 when no environment ran what was asked (every cell skipped or failed by the harness);
    4 when some ran but an environment could not be built or started (its cells say why), or one
    asked for with --with could not be made here."""
    def env(record: CellRecord) -> str:
        return str(record.get("env", {}).get("name"))
    failed = sorted({env(r) for r in records if error_type(r) == "EnvironmentFailed"
                     or (r["status"] == Status.SKIPPED and env(r) in asked)})
    lost = [error for r in records if (error := r.get("error")) and error.get("type") == "EngineLost"]
    if lost:  # one line for the run, not one per cell: how to finish it is the same for all
        err.print(f"[red]{lost[0].get('why')}[/]: {len(lost)} cell(s) cut or never started; `{lost[0].get('resume')}` "
                  "finishes the run once the engine answers", soft_wrap=True)
        return 4 if any(r["status"] in RAN for r in records) else 3
    if any(r["status"] in RAN for r in records):
        if failed:
            err.print(f"[red]not every environment ran[/]: {', '.join(failed)} could not be built or started here "
                      "(its cells are harness-error or skipped records with the cause; once that is mended, --resume RUN_DIR "
                      "builds it again and runs them)")
            return 4
        return 0
    reasons = sorted({f"{r['status']}: {str((r.get('error') or {'type': ''}).get('message', '')).splitlines()[0][:120]}"
                      for r in records} or {"no cell was planned"})
    err.print(f"[red]nothing ran[/]: {'; '.join(reasons)}")
    return 3


def warn_unreadable(matrix: MatrixDoc, err: Console) -> None:
    """A line per record file that could not be read: its cell shows ``unreadable``, not a result."""
    for entry in matrix.get("unreadable") or []:
        err.print(f"warning: unreadable record {entry['path']} ({entry['reason'][:120]}); its cell shows 'unreadable'",
                  markup=False, soft_wrap=True)


def show_matrix(matrix: MatrixDoc, as_json: bool, out: Console, words_at: str | None = None) -> None:
    """The matrix's table, or where it would not fit the screen (and ``words_at`` names where each cell's
    words are), a block per framework family; then one sentence per environment and the tolerances."""
    from harness.judgement import per_framework
    from harness.reporting import closing, render
    from harness.reporting.glance import NO_GPU

    if as_json:
        print(json.dumps(matrix, indent=1, sort_keys=True))
        return
    table = render.matrix_table(matrix, out.width)
    if words_at and _height(table, out.width) > (out.size.height if out.is_terminal else SCREEN_LINES):
        for block in closing.blocks(matrix):
            out.print(block)
        out.print(closing.legend(), style="dim")
        out.print(f"each cell in words: {words_at}", markup=False, soft_wrap=True)
    else:
        out.print(table)
    for line in per_framework.sentences(matrix, host_only=matrix.get("machine") == NO_GPU):
        out.print(line, markup=False)
    out.print(render.tolerance_line(matrix.get("tolerances_text")))


SCREEN_LINES = 50  # a screen, where the output is not a terminal that says its height


def _height(table: Any, width: int) -> int:
    buffer = io.StringIO()
    Console(file=buffer, width=width).print(table)
    return buffer.getvalue().count("\n")


def ipython_line(data: events.IPython) -> str:
    """The ``ipython`` event: a notebook's environment got IPython for its Python."""
    return f"{data['env']}: IPython for Python {data['python']} {'reused' if data['reused'] else 'installed'}"


def plain_events(err: Console) -> Any:
    """Progress for commands without a progress bar: finished cells, backends, skips and builds (and
    what a build is doing), a line each; environments in virtualenvs for want of their base images, a
    line per cause at the plan."""
    fallbacks = FallbackLines()

    def emit(kind: str, data: Mapping[str, Any]) -> None:
        for line in fallbacks.due(kind):
            err.print(line, markup=False, soft_wrap=True)
        if kind == "cell-start":
            after_cells()
        elif kind == "cell-done":
            from harness.reporting import render

            err.print(render.summary_line(cast(CellRecord, data)))  # the record, as the runner sent it
        elif kind == "ipython":
            err.print(ipython_line(cast(events.IPython, data)), markup=False)
        elif kind == "gpu-code":
            err.print(cast(events.Text, data)["text"], markup=False, soft_wrap=True)
        elif kind == "build-log":  # an environment being made: what it fetches, how long so far
            err.print(f"  {cast(events.Text, data)['text']}", markup=False, highlight=False)
        elif kind == "fallback":
            for line in fallbacks.add(data):
                err.print(line, markup=False, soft_wrap=True)
        elif kind in ("backend", "skipped", "failed", "build"):
            err.print(f"{kind}: " + ", ".join(str(v) for v in data.values()), markup=False)
    return emit


# MatrixOptions' fields that come from a command's arguments, by the argument's name (cli/options.OPTIONS)
FROM_ARGS = {"variant": "variant", "results_root": "results", "timeout": "timeout", "params": "param", "jobs": "jobs",
             "gpu_mode": "gpu_mode", "gpu_indices": "gpus", "backend": "backend", "venv_root": "venv_dir",
             "setenv": "setenv", "with_pins": "with_pins", "pip": "pip", "index_url": "index_url",
             "cluster": "cluster"}
# repeated KEY=VALUE pairs, and repeated values
AS_GIVEN: dict[str, Callable[[Any], Any]] = {"params": dict, "setenv": dict, "with_pins": list, "pip": list}


def matrix_options(args: argparse.Namespace, **decided: Any) -> Any:
    """The options of every command that runs cells, built in one place from the arguments its parser has
    (a command without --jobs keeps the default), then what the command decides itself (``decided``)."""
    from harness.running.request import MatrixOptions

    found = {field: AS_GIVEN.get(field, _same)(getattr(args, name)) for field, name in FROM_ARGS.items() if hasattr(args, name)}
    if found.get("pip"):
        from harness.environments import pins  # here: packaging costs every command's start ~70 ms

        pins.packages(found["pip"])
    if hasattr(args, "wheelhouse"):
        found["build"] = build_options(args)
    return MatrixOptions(**{**found, **decided})


def _same(value: Any) -> Any:
    return value


def per_release_matrix(args: Any, command: str, **extra: Any) -> Any:
    """The matrix options of a command that makes an environment per release (bisect, sweep, history)."""
    if args.backend == "process":
        raise UsageError(f"{command} makes an environment per release: use --backend docker or venv, not process")
    return matrix_options(args, **extra)


def release_events(err: Console, package: str) -> Any:
    """Progress of a command over releases: the releases chosen, each release as it starts, then the cells
    (and for a history, each sweep as it starts)."""
    plain, current = plain_events(err), {"package": package}

    def emit(kind: str, data: Mapping[str, Any]) -> None:
        if kind == "history-part":  # history: the next sweep, whose releases are of its own package
            part = cast(events.HistoryPart, data)
            current["package"] = part["package"]
            err.print(f"[bold]sweep {part['label']}[/]")
        elif kind == "releases":
            chosen = cast(events.Releases, data)
            err.print(f"{len(chosen['versions'])} releases of {chosen['package']}: {', '.join(chosen['versions'])}",
                      markup=False)
        elif kind == "version":
            err.print(f"[bold]{current['package']} {cast(events.Version, data)['version']}[/]")
        else:
            plain(kind, data)
    return emit
