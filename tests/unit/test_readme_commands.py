"""Every harness command the README and the docs pages show parses: a user copying one never meets
'unrecognized arguments'."""
from __future__ import annotations

import re
import shlex

import pytest

from harness.cli import build_parser, split_command
from harness.definitions.config import REPO

README = "\n".join(p.read_text(encoding="utf-8") for p in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))])
COMMAND = re.compile(r"(?:nox -s ([a-z-]+) --|python -m harness) ([^`#\n]*)")


def _commands() -> list[tuple[str, str]]:
    found = []
    for session, rest in COMMAND.findall(README):
        rest = rest.replace("[", " ").replace("]", " ").replace("...", " ").replace("OPTIONS", " ").rstrip("\\ ")
        found.append((session, rest.strip()))
    return found


SUBCOMMANDS = set(build_parser()._subparsers._group_actions[0].choices)  # type: ignore[union-attr]


@pytest.mark.parametrize("session, rest", _commands())
def test_readme_command_parses(session: str, rest: str) -> None:
    argv = shlex.split(rest)
    if session:
        if session not in SUBCOMMANDS:
            pytest.skip(f"nox -s {session} is not a harness command")
        argv = [session, *argv]
    ours, _ = split_command(argv)  # what follows repro's -- is the script's (or its launcher's)
    build_parser().parse_args(ours)  # argparse exits 2 on an unknown option


def test_the_readme_shows_commands() -> None:
    assert len(_commands()) >= 20
