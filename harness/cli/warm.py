"""What a command needs once its cells are done, imported while the first one runs.

The host only waits on a cell while it runs (its meters sample on their own thread), yet judging it and
writing matrix.md, report.html and repro.md cost 0.1-0.2 s of imports (the judge, the reporting modules,
Jinja2 and its compiled templates) that a user would otherwise wait for after the script ended. Begun at
the first cell's start, not before: at start-up the same imports would delay the cell itself.
"""
from __future__ import annotations

import importlib
import threading

AFTER_CELLS = ("harness.judgement.verdicts", "harness.reporting.aggregate", "harness.reporting.render",
               "harness.reporting.closing", "harness.reporting.repro_md", "harness.reporting.report_html",
               "harness.reporting.repro_page", "harness.judgement.per_framework", "harness.judgement.failures",
               "harness.judgement.issue_answer", "harness.cli.repro_issue")
TEMPLATES = ("report.html",)
_started = threading.Event()


def after_cells() -> None:
    """Import what the end of a run needs, once per process, on a daemon thread (an import the main thread
    reaches first simply waits for it: Python's import lock)."""
    if _started.is_set():
        return
    _started.set()
    threading.Thread(target=_import, name="warm-imports", daemon=True).start()


def _import() -> None:
    try:
        for name in AFTER_CELLS:
            importlib.import_module(name)
        from harness.reporting import templates

        for template in TEMPLATES:
            templates.get(template)
    except Exception:  # a head start only: the main thread imports (and says) what fails
        return
