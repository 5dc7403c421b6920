"""The command line. The only place that prints, and the only place that catches HarnessError.

Each command lives in a module of its own here (``HELP`` and ``main(args, err, out)``); every
option is declared once in options.py and attached to the commands that take it. Progress and
logs go to stderr (rich; plain when not a terminal or NO_COLOR is set); results (tables, or JSON
with --json) go to stdout.
"""
from __future__ import annotations

import argparse
import signal
from types import ModuleType
from typing import NoReturn

from harness import __version__
from harness.cli import bisect, cdi_spec, clean, doctor, images, matrix, report, repro, run, scenarios
from harness.cli.options import add_options
from harness.cli.shared import console
from harness.common.errors import HarnessError

COMMANDS: dict[str, ModuleType] = {
    "run": run, "matrix": matrix, "images": images, "repro": repro, "bisect": bisect, "report": report,
    "scenarios": scenarios, "doctor": doctor, "cdi-spec": cdi_spec, "clean": clean,
}


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line naming the cause and where to look."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="harness", description="Does this cleanup really give GPU memory back?")
    parser.add_argument("--version", action="version", version=f"harness {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    for name, module in COMMANDS.items():
        add_options(sub.add_parser(name, help=module.HELP), name)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    err, out = console(stderr=True), console(stderr=False)
    signal.signal(signal.SIGTERM, _terminate)
    try:
        code: int = COMMANDS[args.command].main(args, err, out)
        return code
    except HarnessError as exc:
        err.print(f"harness: error: {exc.message}", markup=False, highlight=False, soft_wrap=True)
        if exc.detail:
            err.print(exc.detail, markup=False, highlight=False, style="dim")
        return exc.exit_code
    except KeyboardInterrupt as exc:
        run_dir = getattr(exc, "run_dir", None)
        where = f"in {run_dir}; `nox -s matrix -- --resume {run_dir}` finishes the run" if run_dir else (
            f"under {args.results}" if getattr(args, "results", None) else "")
        err.print(f"harness: interrupted; cells already finished are kept {where}".rstrip(), markup=False, soft_wrap=True)
        return 130


def _terminate(signum: int, frame: object) -> None:
    """SIGTERM unwinds like Ctrl-C, so every cell's ``finally`` removes what it started."""
    raise KeyboardInterrupt
