"""``python -m harness.examples [NAME]``: the shipped example scripts, or the path of one."""
from __future__ import annotations

import ast
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def examples() -> dict[str, Path]:
    return {p.stem: p for p in sorted(HERE.glob("*.py")) if not p.name.startswith("_")}


def main(argv: list[str]) -> int:
    found = examples()
    if not argv:
        for name, path in found.items():
            first = (ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or "").splitlines()[0:1]
            print(f"{name}: {first[0] if first else ''}")
        return 0
    if argv[0] not in found:
        print(f"no example {argv[0]!r}; the examples: {', '.join(found)}", file=sys.stderr)
        return 2
    print(found[argv[0]])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
