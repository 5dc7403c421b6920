"""The screen a `matrix` run ends on when its whole table would not fit one: a block per framework
family (its scenarios x the environments that ran them, each header with its release), every cell
its glyph and amount or the reason it was not judged, the rows that only a GPU could answer folded
into one line. The words of every cell stay in matrix.md and report.html."""
from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text

from harness.common.units import human_bytes
from harness.judgement import answer
from harness.judgement.per_framework import main_release
from harness.model.judged import Glance, MatrixDoc
from harness.reporting.render import BACK_GLYPHS, BACK_STYLES


def blocks(matrix: MatrixDoc) -> list[Table | Text]:
    """A table per family, then a line per family naming its rows that need a GPU to be answered."""
    out: list[Table | Text] = []
    families: dict[str, list[str]] = {}
    for name in sorted(matrix["scenarios"], key=lambda n: (_first_column(matrix, n), n)):  # in the columns' order
        families.setdefault(name.split("/")[0], []).append(name)
    for family, names in families.items():
        envs = [e for e in matrix["environments"] if any(e in matrix["cells"].get(n, {}) for n in names)]
        shown = [n for n in names if not all((said := _said(matrix, n, e)) is not None and said["word"] == answer.NOT_SHOWN
                                             for e in envs if e in matrix["cells"].get(n, {}))]
        folded = [n.split("/", 1)[1] for n in names if n not in shown]
        if shown:
            table = Table(box=None, pad_edge=False, padding=(0, 1), header_style="bold underline")
            table.add_column(f"{family}/", no_wrap=True, min_width=max(len(n) for n in shown) - len(family) - 1)
            for env in envs:  # a long amount wraps inside its cell; the scenario's name is never cut
                table.add_column(_header(matrix, env), overflow="fold")
            for name in shown:
                table.add_row(name.split("/", 1)[1], *(_cell(matrix, name, env) for env in envs))
            out.append(table)
        if folded:
            out.append(Text(f"{family}: {answer.NOT_SHOWN} ({len(folded)}): {', '.join(folded)}", style="dim"))
    return out


def legend() -> str:
    """The table's key: each answer's glyph and the judge's short word for it (answer.SHORT), and how a cell
    here abbreviates (the amount left, +X/it for a loop's growth, why for a cell not applicable)."""
    said = {back: f"{BACK_GLYPHS[back]} {answer.SHORT[back]}" for back in answer.SHORT}
    return (f"{said['all']}  {said['part']}  {said['none']} (amount left; +X/it: grows per iteration)  {said['borderline']}"
            f"  {said['n/a']} (why)")


def _said(matrix: MatrixDoc, name: str, env: str) -> Glance | None:
    cell = matrix["cells"].get(name, {}).get(env)
    return cell["glance"] if cell else None


def _cell(matrix: MatrixDoc, name: str, env: str) -> Text:
    said = _said(matrix, name, env)
    if not said:
        return Text("")
    back, loop = str(said["back"]), said.get("loop")
    if back == "n/a":
        word = str(said["word"])
        short = "GPU only" if word == answer.NOT_SHOWN else word.split(":")[0]
        return Text(f"{BACK_GLYPHS['n/a']} {short}", style=BACK_STYLES["n/a"])
    amount = _short_bytes(said["left"]) if said.get("left") and back != "all" else ""
    growth = f"+{_short_bytes(loop['slope'])}/it" if loop and loop["growing"] else ""
    amount = amount or ("borderline" if back == "borderline" and not growth else "")
    return Text(" ".join(p for p in (BACK_GLYPHS[back], amount, growth) if p), style=BACK_STYLES[back])


def _short_bytes(value: Any) -> str:
    """Three figures are enough on this screen ("1.06 GiB", "290 MiB"); the words keep two decimals."""
    number, unit = human_bytes(value).split(" ")
    return f"{float(number):.3g} {unit}"


def _first_column(matrix: MatrixDoc, name: str) -> int:
    row = matrix["cells"].get(name, {})
    return min((i for i, env in enumerate(matrix["environments"]) if env in row), default=len(matrix["environments"]))


def _header(matrix: MatrixDoc, env: str) -> str:
    known = main_release((matrix.get("columns") or {}).get(env) or {})
    return f"{env} {known[1]}" if known else env
