"""Every fatal error of the tool, each with an exit code and a one-line message.

A message says what failed, what was found, and what to do. Only the CLI catches these.
A cell's failure is never one of them: it is a result (see runner.py).
"""
from __future__ import annotations


class HarnessError(Exception):
    """Base of the tool's fatal errors."""

    exit_code = 2

    def __init__(self, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail  # e.g. the failing build step's log; shown below the one line


class UsageError(HarnessError):
    """Bad input: a missing file, an unknown name, a bad option value."""

    exit_code = 2


class EnvironmentNotFound(HarnessError):
    """An interpreter, an engine or a driver the command needs is not there."""

    exit_code = 3


class ResultsUnwritable(HarnessError):
    """The results folder cannot take what a run writes: read-only, full, or not a folder."""

    exit_code = 5


class BuildError(HarnessError):
    """An environment image could not be built."""

    exit_code = 4


class BaseUnavailable(BuildError):
    """An image's base is not on this host and cannot be pulled (no registry answers, or none has it)."""

    def __init__(self, base: str, cause: str) -> None:
        super().__init__(f"its base image {base} is not on this host and cannot be pulled ({cause})")
        self.base, self.cause = base, cause  # several environments failing on one cause are said once


class DockerUnavailable(EnvironmentNotFound):
    """No Docker engine answers."""


def suggest(name: str, known: list[str]) -> str:
    """' (did you mean X?)' for a near miss, else the list of what is known."""
    import difflib

    close = difflib.get_close_matches(name, known, n=1)
    if close:
        return f" (did you mean {close[0]!r}?)"
    return f" (known: {', '.join(sorted(known))})" if known else ""
