"""How the judge's five answers look, once for every renderer: a cell's background in HTML (atlas and
report), a chart's mark, the terminal's colour and a glyph for output without colour. The renderers take
these and decide none of their own; answer.COLOUR says which answer is which colour. Also here: the terminal's
colour of a single step's verdict or a cell's status, and the turn's mark."""
from __future__ import annotations

from dataclasses import dataclass

from harness.judgement.answer import COLOUR, Colour


@dataclass(frozen=True)
class Shade:
    fill: str  # a cell's background (HTML)
    mark: str  # a point or line in a chart (SVG)
    terminal: str  # rich's style for the terminal
    glyph: str  # the answer without colour (NO_COLOR, a log)


PALETTE = {
    Colour.GREEN: Shade(fill="#dff3df", mark="#2e7d32", terminal="green", glyph="✓"),
    Colour.AMBER: Shade(fill="#fff1cc", mark="#f9a825", terminal="yellow", glyph="◑"),
    Colour.RED: Shade(fill="#f9d6d6", mark="#c62828", terminal="red", glyph="✗"),
    Colour.GREY: Shade(fill="#eeeeee", mark="#9e9e9e", terminal="dim", glyph="·"),
    Colour.BLUE: Shade(fill="#dcefff", mark="#29b6f6", terminal="cyan", glyph="≈"),  # borderline: neither side
}


# The terminal's colour of one step's verdict, or of a cell's status where it did not run to its end (``run``'s
# checkpoint table, a cell's summary line), in the answers' colours by what came back at that step: a "cached" step
# gave the driver nothing back, so it is red, as a cell answered "cached in the pool" is in the grid; its word says
# where the memory is.
STEP_TERMINAL = {
    **dict.fromkeys(("released", "returned", "ok"), PALETTE[Colour.GREEN].terminal),
    "partial": PALETTE[Colour.AMBER].terminal,
    **dict.fromkeys(("cached", "held", "not-returned", "error", "crashed", "timeout", "harness-error", "unreadable"),
                    PALETTE[Colour.RED].terminal),
    **dict.fromkeys(("no-signal", "unmeasured", "skipped", "interrupted"), PALETTE[Colour.GREY].terminal),
    "unsupported": "magenta",
}
TURN = "#7b2ff7"  # a turn's mark in the atlas, a cell whose answer changed since another run (--compare)


def of_back(back: str) -> Shade:
    """The shade of an answer ('all', 'part', 'none', 'n/a', 'borderline'); grey for one the judge never gives."""
    return PALETTE[COLOUR.get(back, Colour.GREY)]


def answer_css() -> str:
    """The HTML pages' rules for the answers' classes (.back-all, ...) and the turn's colour (``var(--turn)``),
    appended to their style sheets."""
    return f":root{{--turn:{TURN}}}" + "".join(f".back-{back.replace('/', '')}{{background:{of_back(back).fill}"
                                                f"{';color:#444' if COLOUR[back] is Colour.GREY else ''}}}"
                                                for back in COLOUR) + "\n"
