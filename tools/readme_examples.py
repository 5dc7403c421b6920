"""The worked examples of the README and docs/*.md, made from a named reference run so they cannot drift.

A block between
    <!-- example FOLDER from="TEXT" to="TEXT" -->
    ...
    <!-- /example -->
holds the lines of FOLDER's repro.md (rendered now, from the committed records, by today's judge)
from the first line starting with ``from`` through the next one starting with ``to``.

    python tools/readme_examples.py           # exit 1 and name the file and block when one differs
    python tools/readme_examples.py --write   # make every block again
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.judgement.cell import read_judged  # noqa: E402
from harness.reporting import repro_md  # noqa: E402

BLOCK = re.compile(r'(<!-- example (\S+) from="([^"]+)" to="([^"]+)" -->\n)(.*?)(<!-- /example -->)', re.S)


def rendered(folder: Path) -> str:
    """The folder's repro.md as `report` makes it now."""
    records, _ = read_judged(folder)
    return repro_md.markdown(records, Path(str(records[0]["scenario"].get("path") or folder)))


def excerpt(text: str, start: str, end: str) -> str:
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith(start))
    last = next(i for i, line in enumerate(lines) if i >= first and line.startswith(end))
    return "\n".join(lines[first:last + 1]) + "\n"


def made_again(readme: str) -> str:
    """The README with every example block made from its folder."""
    return BLOCK.sub(lambda m: m.group(1) + excerpt(rendered(ROOT / m.group(2)), m.group(3), m.group(4)) + m.group(6),
                     readme)


def pages() -> list[Path]:
    """Every page that may hold example blocks: the README and the docs."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def main() -> int:
    stale = []
    for path in pages():
        text = path.read_text(encoding="utf-8")
        fresh = made_again(text)
        if "--write" in sys.argv[1:]:
            if fresh != text:
                path.write_text(fresh, encoding="utf-8")
            continue
        stale += [f"{path.relative_to(ROOT)}'s example from {m.group(2)}" for m, n in
                  zip(BLOCK.finditer(text), BLOCK.finditer(fresh), strict=True) if m.group(0) != n.group(0)]
    for block in stale:
        print(f"{block} differs from what it renders now: python tools/readme_examples.py --write")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
