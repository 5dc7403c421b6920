"""Entry points. Glue only: every session calls the harness package, where the logic is tested.

Pass options after ``--``: ``nox -s matrix -- --env torch --scenario 'torch/*' --variant cpu``.
"""
from __future__ import annotations

import nox

nox.options.default_venv_backend = "venv"
nox.options.reuse_existing_virtualenvs = True
nox.options.sessions = ["tests", "lint"]

# Sessions that run one harness command: name -> what it does (shown by `nox -l`).
COMMANDS = {
    "matrix": "Every scenario in every applicable environment, one fresh container per cell; writes the matrix.",
    "images": "Build the environment images (gpu variant with an NVIDIA GPU, else cpu), layer-cached; -- --check resolves only.",
    "doctor": "Docker engine, NVIDIA driver, container GPU support, GPUs, images: one line each, with the fix.",
    "cdi-spec": "Write a CDI spec for this host's NVIDIA driver (run as root): GPUs in containers without the toolkit.",
    "clean": "Remove every container this tool labelled (after a killed run).",
    "bisect": "First release where a script's memory turns: SCRIPT --package P --good V1 --bad V2 [--criterion ...].",
    "sweep": "A package's releases as one matrix's columns: --package P --from V1 --to V2 [--every minor|patch] "
             "[--scenario GLOB | --script S]; marks where each answer changes.",
    "history": "The whole GPU history: every framework's releases swept in turn (matrix/history.toml) with each sweep's "
               "time; -- --plan lists them, --only PKG, --resume HISTORY_DIR.",
    "report": "Re-render a saved run (RUN_DIR [--compare OTHER_RUN_DIR]): terminal table, matrix.md/json, report.html.",
    "atlas": "Every committed reference run as one static site in atlas/ (grid, evidence pages, claims) with atlas.json/csv.",
    "repro": "A bug report's script, unmodified, in each environment (SCRIPT [--env NAME ...]); prints a Markdown block.",
}


def _command_session(command: str, doc: str) -> None:
    def run(session: nox.Session) -> None:
        session.install("-q", "-e", ".")
        try:
            session.run("python", "-m", "harness", command, *session.posargs)
        except nox.command.CommandFailed as failed:  # its own exit status, not nox's 1: 2 a usage error, 3, 4 ...
            code = getattr(failed, "return_code", None)
            raise SystemExit(code if isinstance(code, int) and code > 0 else 1) from None

    run.__doc__ = doc
    run.__name__ = command.replace("-", "_")
    nox.session(name=command)(run)


for _command, _doc in COMMANDS.items():
    _command_session(_command, _doc)


@nox.session
def tests(session: nox.Session) -> None:
    """Unit tests, plus integration tests where a Docker engine answers (required when CI=true)."""
    session.install("-q", "-e", ".[test,ray]")
    session.run("python", "-m", "pytest", *session.posargs)


@nox.session
def evidence(session: nox.Session) -> None:
    """The committed references as evidence: every record loads and is judged into a matrix that follows its schema,
    re-rendering changes no tracked file, the README's examples and the claims and words they settle still hold (also
    part of tests)."""
    session.install("-q", "-e", ".[test]")
    session.run("python", "-m", "pytest", "tests/evidence", *session.posargs)


@nox.session
def faults(session: nox.Session) -> None:
    """Fault injection: detached children, Ctrl-C, concurrent runs, full disks, bad files; a table of what happened."""
    session.install("-q", "-e", ".[test]")
    session.run("python", "tests/faults/run_faults.py", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff and mypy on the host code; vermin proves the agent runs on Python 2.7 and 3.5+."""
    session.install("-q", "-e", ".[lint]")
    session.run("python", "-m", "ruff", "check", "harness", "tests", "tools", "noxfile.py")
    session.run("python", "-m", "mypy")
    session.run("vermin", "-q", "--no-tips", "--violations", "-t=2.7-", "-t=3.5-", "harness/agent",
                "images/tf1.8/rename_version.py")
