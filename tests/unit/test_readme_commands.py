"""Every harness command the README shows parses: a user copying one never meets 'unrecognized arguments'."""
from __future__ import annotations

import re
import shlex

import pytest

from harness.cli import build_parser
from harness.environments.config import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")
COMMAND = re.compile(r"(?:nox -s ([a-z-]+) --|python -m harness) ([^`#\n]*)")


def _commands() -> list[tuple[str, str]]:
    found = []
    for session, rest in COMMAND.findall(README):
        rest = rest.replace("[", " ").replace("]", " ").replace("...", " ").rstrip("\\ ")
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
    build_parser().parse_args(argv)  # argparse exits 2 on an unknown option


def test_the_readme_shows_commands() -> None:
    assert len(_commands()) >= 20
