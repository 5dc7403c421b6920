"""The command line. The only place that prints, and the only place that catches HarnessError.

Each command lives in a module of its own here (``main(args, err, out)``, help in COMMANDS); every
option is declared once in options.py and attached to the commands that take it. Progress and
logs go to stderr (rich; plain when not a terminal or NO_COLOR is set); results (tables, or JSON
with --json) go to stdout.
"""
from __future__ import annotations

import argparse
import importlib
import signal
import sys
from pathlib import Path
from types import ModuleType
from typing import NoReturn

from harness import __version__
from harness.cli.options import add_options
from harness.cli.shared import console
from harness.common.commands import command
from harness.common.errors import HarnessError
from harness.definitions import config

# command -> (its module here, its help). A module is imported only when its command runs: the
# start-up of `repro` is part of what measuring costs.
COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("run", "run one scenario in one environment and show its checkpoints"),
    "matrix": ("matrix", "every scenario in every applicable environment, in containers"),
    "images": ("images", "build the environment images (layer-cached)"),
    "repro": ("repro", "a bug report's script, unmodified, in each environment, measured"),
    "bisect": ("bisect", "the first release where a script's memory behaviour turns, in few runs"),
    "sweep": ("sweep", "a package's releases as the columns of one matrix, with where each answer changes"),
    "history": ("history", "the whole GPU history in one command: every framework's releases swept in turn "
                           "(matrix/history.toml), with each sweep's time"),
    "report": ("report", "re-render a saved run: terminal table, matrix.md, matrix.json, report.html"),
    "atlas": ("atlas", "every committed reference run as one static site (grid, evidence, claims) and atlas.json/csv"),
    "scenarios": ("scenarios", "the catalogue as a Markdown table: scenario, technique, seed, envs"),
    "examples": ("examples", "the example scripts shipped with the tool, or the path of one: repro \"$(gcm examples NAME)\""),
    "doctor": ("doctor", "what this host can run: engine, driver, container GPU support, images"),
    "cdi-spec": ("cdi_spec", "write a CDI spec (nvidia.com/gpu) for this host's driver: GPUs in containers on "
                             "Docker >= 25 without the toolkit"),
    "clean": ("clean", "remove the containers this user's runs left (--all-users: everyone's)"),
}


def command_module(name: str) -> ModuleType:
    return importlib.import_module(f"harness.cli.{COMMANDS[name][0]}")


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line naming the cause and where to look."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{ERROR_PREFIX}: error: {message} (see {self.prog} --help)\n")


ERROR_PREFIX = "gpu-cleanup-matrix"  # the same first word on every error, run as gcm, python -m harness or nox


def program_name() -> str:
    """The name the tool was started by: gpu-cleanup-matrix, gcm, harness (``python -m`` names its package)."""
    called = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else "harness"
    if called == "__main__.py":
        called = Path(sys.argv[0]).parent.name
    return called.replace("_", "-") if called in ("gpu-cleanup-matrix", "gcm", "gpu_cleanup_matrix") else "harness"


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog=program_name(), description="Does this cleanup really give GPU memory back?")
    parser.add_argument("--version", action="version", version=f"gpu-cleanup-matrix {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    for name, (_, text) in COMMANDS.items():
        add_options(sub.add_parser(name, help=text), name)
    return parser


def split_command(argv: list[str]) -> tuple[list[str], list[str]]:
    """`repro ... -- REST`: REST is the script's arguments or the command that launches it, never
    options of ours (argparse would take a ``--lr`` there for one)."""
    if "--" in argv and "repro" in argv[:argv.index("--")]:
        cut = argv.index("--")
        return argv[:cut], argv[cut + 1:]
    return argv, []


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    ours, rest = split_command(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(ours)
    args.rest = rest
    err, out = console(stderr=True), console(stderr=False)
    signal.signal(signal.SIGTERM, _terminate)
    from harness import frameworks

    for line in frameworks.LEFT_OUT:  # a broken plugin framework: said, and the rest of the tool runs
        err.print(f"{ERROR_PREFIX}: warning: {line}", markup=False, highlight=False, soft_wrap=True)
    try:
        chosen = config.use_environments(getattr(args, "environments", None))
        if getattr(args, "environments", None) is None and chosen.parent == Path.cwd().resolve():
            err.print(f"environments: {chosen} (found in the working folder; --environments names another)",
                      markup=False, soft_wrap=True)
        code: int = command_module(args.command).main(args, err, out)
        return code
    except HarnessError as exc:
        err.print(f"{ERROR_PREFIX}: error: {exc.message}", markup=False, highlight=False, soft_wrap=True)
        if exc.detail:
            err.print(exc.detail, markup=False, highlight=False, style="dim")
        return exc.exit_code
    except KeyboardInterrupt as exc:
        run_dir = getattr(exc, "run_dir", None)
        where = f"in {run_dir}; `{command('matrix', '--resume', str(run_dir))}` finishes the run" if run_dir else (
            f"under {args.results}" if getattr(args, "results", None) else "")
        err.print(f"{ERROR_PREFIX}: interrupted; cells already finished are kept {where}".rstrip(), markup=False, soft_wrap=True)
        return 130


def _terminate(signum: int, frame: object) -> None:
    """SIGTERM unwinds like Ctrl-C, so every cell's ``finally`` removes what it started."""
    raise KeyboardInterrupt
