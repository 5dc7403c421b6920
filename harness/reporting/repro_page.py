"""repro's report.html as a repro page: the script or the report as its title, the answer above the table (for a
pasted report, whether it reproduces), the reporter's releases marked, and no folder of this machine in it.

The matrix page of the same run has a run's title, the articles' claims line and every path as recorded; a user who
pastes a repro page into a bug thread shares the answer, not where their files live."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from harness.model.judged import MatrixDoc
from harness.model.record import CellRecord
from harness.reporting import glance


@dataclass(frozen=True)
class ReproPage:
    title: str
    lead: tuple[str, ...]  # the answer, sentence by sentence, above the table
    marked: dict[str, str] = field(default_factory=dict)  # column -> what it is to the report ("the report's release")
    hidden: tuple[str, ...] = ()  # this machine's folders, left out of every path the page shows (longest first)


def page(matrix: MatrixDoc, records: list[CellRecord], script: Path, lead: list[str],
         reporters: dict[str, list[str]] | None = None) -> ReproPage:
    """A repro run's page. ``lead``: the answer in sentences (a pasted report's: the releases it states and whether
    it reproduces per framework); ``reporters``: a pasted report's framework -> the releases it states, whose
    columns are marked."""
    what = "host memory" if matrix.get("machine") == glance.NO_GPU else "GPU memory"
    title = (f"Does the report reproduce? {script.name} ({what}, {matrix['run']})" if reporters is not None
             else f"{script.name}: {what} per environment ({matrix['run']})")
    pins = {f"{package}=={version}" for package, versions in (reporters or {}).items() for version in versions}
    marked = {env: "the report's release" for env in matrix["environments"] if pins & set(env.split(","))}
    return ReproPage(title=title, lead=tuple(lead), marked=marked, hidden=hidden_folders(records, script))


def hidden_folders(records: list[CellRecord], script: Path) -> tuple[str, ...]:
    """The folders of this machine a record names: the script's, each environment's virtualenv folder and the home
    folder; longest first, so the most precise one goes."""
    folders = {str(script.resolve().parent), str(Path.home())}
    for record in records:
        interpreter = (record.get("env") or {}).get("interpreter")
        if interpreter and os.path.isabs(interpreter):  # .../venvs/NAME/bin/python: the page keeps NAME/bin/python
            folders.add(str(Path(interpreter).parent.parent.parent))
        if (path := (record.get("scenario") or {}).get("path")) and os.path.isabs(path):
            folders.add(str(Path(path).parent))
    return tuple(sorted((f for f in folders if f not in ("/", "")), key=len, reverse=True))
