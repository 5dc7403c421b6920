"""Every relative link of the README and the docs pages points at a file or folder of the checkout:
pages moved between folders keep their links true."""
from __future__ import annotations

import re

from harness.definitions.config import REPO

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)\s]*)?\)")


def test_relative_links_resolve() -> None:
    broken = [f"{page.relative_to(REPO)}: {target}" for page in PAGES for target in LINK.findall(page.read_text())
              if not re.match(r"[a-z]+://|mailto:", target) and not (page.parent / target).exists()]
    assert not broken, "\n".join(broken)


def test_the_readme_keeps_to_its_first_screens() -> None:
    assert len((REPO / "README.md").read_text().splitlines()) <= 300
