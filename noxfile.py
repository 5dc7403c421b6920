"""Entry points. Glue only: every session calls the harness package, where the logic is tested."""
from __future__ import annotations

import nox

nox.options.default_venv_backend = "venv"
nox.options.reuse_existing_virtualenvs = True
nox.options.sessions = ["tests", "lint"]

@nox.session
def tests(session: nox.Session) -> None:
    """Unit tests, plus integration tests where a Docker engine answers (required when CI=true)."""
    session.install("-q", "-e", ".[test]")
    session.run("python", "-m", "pytest", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff and mypy on the host code; vermin proves the agent runs on Python 2.7 and 3.5+."""
    session.install("-q", "-e", ".[lint]")
    session.run("python", "-m", "ruff", "check", "harness", "tests", "noxfile.py")
    session.run("python", "-m", "mypy")
    session.run("vermin", "-q", "--no-tips", "--violations", "-t=2.7-", "-t=3.5-", "harness/agent")
