"""`harness examples [NAME]`: the example scripts shipped with the tool (harness/examples), or the
path of one, so an installed tool runs them without knowing where it was installed:
``gcm repro "$(gcm examples holders_cpu)"``."""
from __future__ import annotations

import argparse
import ast
from pathlib import Path

from rich.console import Console

from harness.common.errors import UsageError

FOLDER = Path(__file__).resolve().parents[1] / "examples"  # shipped with the package; read, never imported


def examples() -> dict[str, Path]:
    return {p.stem: p for p in sorted(FOLDER.glob("*.py")) if not p.name.startswith("_")}


def main(args: argparse.Namespace, err: Console, out: Console) -> int:
    found = examples()
    if args.name is None:
        for name, path in found.items():
            doc = (ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or "").split("\n\n")[0]
            first = " ".join(doc.split()).split(". ")[0].rstrip(".")  # its first sentence, whole
            out.print(f"{name}: {first}", markup=False, highlight=False, soft_wrap=True)
        return 0
    if args.name not in found:
        raise UsageError(f"no example {args.name!r}: the examples are {', '.join(found)}")
    out.print(str(found[args.name]), markup=False, highlight=False, soft_wrap=True)
    return 0
