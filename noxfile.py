"""Entry points. Glue only: every session calls the harness package, where the logic is tested.

Pass options after ``--``: ``nox -s matrix -- --env torch --scenario 'torch/*' --variant cpu``.
"""
from __future__ import annotations

import nox

nox.options.default_venv_backend = "venv"
nox.options.reuse_existing_virtualenvs = True
nox.options.sessions = ["tests", "lint"]


def _harness(session: nox.Session, *args: str) -> None:
    session.install("-q", "-e", ".")
    session.run("python", "-m", "harness", *args, *session.posargs)


@nox.session
def matrix(session: nox.Session) -> None:
    """Every scenario in every applicable environment, one fresh container per cell; writes the matrix."""
    _harness(session, "matrix")


@nox.session
def images(session: nox.Session) -> None:
    """Build the environment images (gpu variant with an NVIDIA GPU, else cpu), layer-cached."""
    _harness(session, "images")


@nox.session
def doctor(session: nox.Session) -> None:
    """Docker engine, NVIDIA driver, container GPU support, GPUs, images: one line each, with the fix."""
    _harness(session, "doctor")


@nox.session
def clean(session: nox.Session) -> None:
    """Remove every container this tool labelled (after a killed run)."""
    _harness(session, "clean")


@nox.session
def tests(session: nox.Session) -> None:
    """Unit tests, plus integration tests where a Docker engine answers (required when CI=true)."""
    session.install("-q", "-e", ".[test,ray]")
    session.run("python", "-m", "pytest", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff and mypy on the host code; vermin proves the agent runs on Python 2.7 and 3.5+."""
    session.install("-q", "-e", ".[lint]")
    session.run("python", "-m", "ruff", "check", "harness", "tests", "noxfile.py")
    session.run("python", "-m", "mypy")
    session.run("vermin", "-q", "--no-tips", "--violations", "-t=2.7-", "-t=3.5-", "harness/agent")


@nox.session
def bisect(session: nox.Session) -> None:
    """First release where a script's memory turns: SCRIPT --package P --good V1 --bad V2 [--criterion ...]."""
    _harness(session, "bisect")


@nox.session
def report(session: nox.Session) -> None:
    """Re-render a saved run (RUN_DIR [--compare OTHER_RUN_DIR]): terminal table, matrix.md/json, report.html."""
    _harness(session, "report")


@nox.session
def repro(session: nox.Session) -> None:
    """A bug report's script, unmodified, in each environment (SCRIPT [--env NAME ...]); prints a Markdown block."""
    _harness(session, "repro")


@nox.session(name="cdi-spec")
def cdi_spec(session: nox.Session) -> None:
    """Write a CDI spec for this host's NVIDIA driver (run as root): GPUs in containers without the toolkit."""
    _harness(session, "cdi-spec")
