"""What a grid cell of the atlas answers and where a row turns, from the runs behind each cell: the
answer most measured runs gave (a copy of a run counts once; ties: the newest run's), and a turn by the
judge's rule (judgement/turns.py) that no run of either side contradicts."""
from __future__ import annotations

from collections import Counter

from harness.judgement.turns import FAILED, Parts, contested, points
from harness.model.record import Status
from harness.reporting.atlas import Cell, lane_of


def measured(cells: list[Cell]) -> list[Cell]:
    """The cells of a grid cell that are measurements (the scenario ran to its end), each distinct
    record once: a copied run folder is not another run, and a skipped or harness-failed cell is not
    a measurement that could agree or disagree."""
    return _distinct(cells, (Status.OK.value,))


def _distinct(cells: list[Cell], statuses: tuple[str, ...]) -> list[Cell]:
    """The cells of ``statuses``, each distinct record once (a copied run folder is not another run)."""
    seen: set[str] = set()
    out = []
    for cell in cells:
        if cell.status in statuses and cell.record_hash not in seen:
            seen.add(cell.record_hash)
            out.append(cell)
    return out


def answer_of(cells: list[Cell]) -> tuple[Cell, list[Cell], str]:
    """A grid cell's answer, as the grid and the dataset both give it: the run it shows (the one most
    measured runs agree with), its distinct measured runs, and its answer (n/a where none measured)."""
    runs = measured(cells)
    chosen = consensus(cells) or cells[0]
    return chosen, runs, chosen.back if runs else "n/a"


def consensus(cells: list[Cell]) -> Cell | None:
    """The answer most of the measured runs gave (ties: the newest run's, made by the newest agent and
    kit), or None without one."""
    runs = measured(cells)
    if not runs:
        return None
    answers = Counter((c.back, c.word) for c in runs)
    return max((c for c in runs if answers[(c.back, c.word)] == max(answers.values())), key=lambda c: c.date)


def failed(cells: list[Cell]) -> list[Cell]:
    """The distinct runs of a grid cell whose scenario failed (an exception, a crash, a hang): the
    release could not do it, an answer a turn compares (judgement/turns.py)."""
    return _distinct(cells, FAILED)


def standing(cells: list[Cell]) -> Cell | None:
    """The run a turn compares for a grid cell: the measured runs' consensus, else a run that failed."""
    return consensus(cells) or next(iter(failed(cells)), None)


def behind(cells: list[Cell]) -> list[Cell]:
    """The distinct runs a grid cell's side of a turn stands on: the measured ones, else the failed ones."""
    return measured(cells) or failed(cells)


def agreeing(cells: list[Cell]) -> list[Cell]:
    """The runs behind a grid cell's side of a turn that gave its answer as a turn compares it (the judge's parts:
    what came back, the verdict, the loop's state, whether it ran; a loop growing 63.70 KiB per iteration in one run
    and 65.98 in the next agree), the others counted apart."""
    shown = standing(cells)
    return [c for c in behind(cells) if shown is not None and _parts(c) == _parts(shown)]


def _parts(cell: Cell) -> Parts:
    """What a turn compares of one run (the colour alone where the judge compared nothing)."""
    return cell.compared or ((cell.back, ""),)


def turn_points(row: dict[str, list[Cell]], cols: list[str]) -> list[tuple[str, str]]:
    """(column, the column it turned from) wherever a technique's answer differs from the nearest
    release before it on the same framework and hardware where that part was judged, by the judge's
    rule (judgement/turns.py, as a sweep's): the cleanup's answer, the loop's state and whether it ran
    at all apart; a skipped or harness-failed column neither turns nor breaks a lane."""
    said = {col: _parts(cell) for col in cols if (cell := standing(row.get(col) or [])) is not None}
    lanes: dict[tuple[str, str], list[tuple[str, Parts | None]]] = {}
    for col in cols:
        lanes.setdefault(lane_of(col), []).append((col, said.get(col)))
    found = [(col, before) for lane in lanes.values() for col, before, _ in points(lane)]
    settled = [(col, before) for col, before in found if not contested(  # points() compares only columns in said
        said[before], said[col], [_parts(c) for c in behind(row[before])], [_parts(c) for c in behind(row[col])])]
    return sorted(settled, key=lambda item: cols.index(item[0]))


def turns(row: dict[str, list[Cell]], cols: list[str]) -> set[str]:
    """Columns where a technique's answer turns (turn_points)."""
    return {col for col, _ in turn_points(row, cols)}


def turn_runs(row: dict[str, list[Cell]], cols: list[str]) -> dict[str, tuple[int, int]]:
    """Each column where the row turns (turn_points): the agreeing runs behind the side before it and its own."""
    return {col: (len(agreeing(row[before])), len(agreeing(row[col]))) for col, before in turn_points(row, cols)}

