"""A technique across releases as a picture: what its cleanup left, release by release, one line per
hardware (for a reader who would rather look than read the evidence table).

Inline SVG written here (no script, no external reference), so the page stays one static file.
Each point is a grid cell's answer (the consensus of its measured runs): its height the bytes the
deciding step left, its colour the answer's; a lane's points are joined only between measured
releases, so a gap is a release the atlas did not measure there.
"""
from __future__ import annotations

from collections.abc import Callable
from html import escape

from harness.common.units import human_bytes
from harness.judgement import palette
from harness.judgement.answer import decisive_step
from harness.reporting.atlas import Cell, lane_of, release_of, version_key
from harness.reporting.atlas_answers import consensus

WIDTH, HEIGHT, LEFT, BOTTOM, TOP, RIGHT = 720, 240, 70, 60, 16, 150
LANE_COLOURS = ("#1565c0", "#6a1b9a", "#00838f", "#5d4037", "#37474f")


def _left(cell: Cell) -> int | None:
    step = decisive_step(list(cell.steps))
    left = step.get("left") if step is not None else None
    return None if left is None else max(0, left)


def _slope(cell: Cell) -> int | None:
    return None if cell.slope is None else max(0, int(cell.slope))


MEASURES: tuple[tuple[str, Callable[[Cell], int | None], str], ...] = (
    ("left after the cleanup", _left, "What the cleanup left at its deciding step"),
    ("growth per iteration", _slope, "How much each iteration of the scenario's loop added"),
)


def charts(by_column: dict[str, list[Cell]]) -> list[tuple[str, str]]:
    """A technique's charts (its grid row: column -> runs): what its cleanup left and, where it has a
    loop, how much each iteration added, for its GPUs and its CPU apart (a GPU's memory and a host's
    are other quantities): (caption, SVG) each, where some lane has two measured releases."""
    found = []
    every = sorted({release_of(col) for col in by_column}, key=version_key)  # the technique's, on any hardware
    for kind, on_cpu in (("GPU memory", False), ("host memory (CPU)", True)):
        row = {col: cells for col, cells in by_column.items() if (lane_of(col)[1] == "CPU") == on_cpu}
        for axis, value, says in MEASURES:
            svg = chart(row, value, f"{axis}, {kind}", every)
            if svg:
                found.append((f"{says}, {kind}.", svg))
    return found


def chart(by_column: dict[str, list[Cell]], value: Callable[[Cell], int | None] = _left,
          axis: str = "left after the cleanup", ticks: list[str] | None = None) -> str | None:
    """One SVG: ``value`` of each grid cell's answer per release, one line per hardware; None where no
    lane has two measured releases (a single point says nothing about releases). ``ticks``: releases to
    place on the axis besides the measured ones (measured elsewhere: here, a visible gap)."""
    lanes: dict[tuple[str, str], list[tuple[str, Cell, int]]] = {}
    for column, cells in by_column.items():
        shown = consensus(cells)
        amount = value(shown) if shown is not None and shown.back != "n/a" else None
        if shown is not None and amount is not None:
            lanes.setdefault(lane_of(column), []).append((release_of(column), shown, amount))
    lanes = {lane: sorted(points, key=lambda p: version_key(p[0])) for lane, points in lanes.items() if len(points) > 1}
    if not lanes:
        return None
    releases = sorted({r for points in lanes.values() for r, _, _ in points} | set(ticks or ()), key=version_key)
    releases = releases[releases.index(min((p[0][0] for p in lanes.values()), key=version_key)):
                        releases.index(max((p[-1][0] for p in lanes.values()), key=version_key)) + 1]
    top = max(left for points in lanes.values() for _, _, left in points) or 1
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(release: str) -> float:
        return LEFT + (plot_w * releases.index(release) / (len(releases) - 1) if len(releases) > 1 else plot_w / 2)

    def y(left: int) -> float:
        return TOP + plot_h * (1 - left / top)

    parts = [f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" style="max-width:100%" role="img" '
             f'aria-label="{escape(axis)}, per release and hardware">',
             f'<line x1="{LEFT}" y1="{TOP + plot_h}" x2="{LEFT + plot_w}" y2="{TOP + plot_h}" stroke="#999"/>',
             f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{TOP + plot_h}" stroke="#999"/>',
             f'<text x="{LEFT - 6}" y="{TOP + 4}" text-anchor="end" font-size="10">{escape(human_bytes(top))}</text>',
             f'<text x="{LEFT - 6}" y="{TOP + plot_h}" text-anchor="end" font-size="10">0</text>',
             f'<text x="12" y="{TOP + plot_h / 2}" font-size="10" transform="rotate(-90 12 {TOP + plot_h / 2})" '
             f'text-anchor="middle">{escape(axis.split(",")[0])}</text>']
    for release in releases:
        parts.append(f'<text x="{x(release):.1f}" y="{TOP + plot_h + 14}" font-size="10" text-anchor="end" '
                     f'transform="rotate(-40 {x(release):.1f} {TOP + plot_h + 14})">{escape(release)}</text>')
    for i, (lane, points) in enumerate(sorted(lanes.items())):
        colour = LANE_COLOURS[i % len(LANE_COLOURS)]
        path = " ".join(f"{x(r):.1f},{y(left):.1f}" for r, _, left in points)
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" points="{path}"/>')
        for release, cell, left in points:
            parts.append(f'<circle cx="{x(release):.1f}" cy="{y(left):.1f}" r="4" fill="{palette.of_back(cell.back).mark}" '
                         f'stroke="{colour}"><title>{escape(f"{lane[1]} {release}: {cell.word}")}</title></circle>')
        parts.append(f'<text x="{LEFT + plot_w + 8}" y="{TOP + 12 + 14 * i}" font-size="11" fill="{colour}">'
                     f'{escape(lane[1])}</text>')
    parts.append("</svg>")
    return "".join(parts)
