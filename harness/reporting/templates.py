"""HTML from templates (report_assets/templates/), autoescaped: a record's text is always text.

Jinja2 rather than f-strings: every value is escaped unless a template says it is markup (the
inlined CSS and scripts), so a word, a path or a claim can never open a tag.
"""
from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

ASSETS = Path(__file__).resolve().parent / "report_assets"  # templates, styles, scripts, Vega


@functools.lru_cache(maxsize=1)
def _environment() -> Any:
    import jinja2  # here, not at import: only the commands that write HTML pay for it

    return jinja2.Environment(loader=jinja2.FileSystemLoader(ASSETS / "templates"), autoescape=True,
                              trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
                              undefined=jinja2.StrictUndefined)


def get(template: str) -> Any:
    """A template compiled once per process (Jinja2's environment caches it): cli/warm compiles report.html early."""
    return _environment().get_template(template)


def render(template: str, **data: Any) -> str:
    return str(get(template).render(**data))
