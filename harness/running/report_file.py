"""Whether repro was given a pasted bug report rather than a script: a .md, .markdown or .txt file, or - (its text on
standard input). Apart from issue.py so that a plain script's start imports none of a report's readers."""
from __future__ import annotations

from pathlib import Path

SUFFIXES = (".md", ".markdown", ".txt")


def is_report(path: Path | None) -> bool:
    return path is not None and (str(path) == "-" or path.suffix.lower() in SUFFIXES)
