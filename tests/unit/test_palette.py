"""One palette: the judge's five answers look the same in the atlas, the report, the charts and the
terminal, and no style sheet or renderer keeps a colour of its own for them."""
from __future__ import annotations

import re

from harness.judgement import palette
from harness.judgement.answer import COLOUR
from harness.reporting import atlas_html, render, templates


def test_the_style_sheets_hold_no_colour_of_an_answer_and_the_pages_get_the_palettes() -> None:
    for sheet in ("atlas.css", "report.css"):
        text = (templates.ASSETS / sheet).read_text(encoding="utf-8")
        assert not re.search(r"\.back-(all|part|none|na)\s*\{", text), sheet
        # nor a colour per verdict or status word (the report's .released/.held/.error rules coloured nothing)
        assert not re.search(r"(^|[\s,}])\.(released|cached|held|error|crashed|unsupported)\s*[,{]", text), sheet
    script = (templates.ASSETS / "report.js").read_text(encoding="utf-8")
    assert "function outcome(" not in script and "function cellText(" not in script  # the judge's words, not the page's
    for back in COLOUR:
        rule = f".back-{back.replace('/', '')}{{background:{palette.of_back(back).fill}"
        assert rule in atlas_html.STYLE and rule in palette.answer_css()


def test_the_terminal_and_the_charts_take_the_same_five_shades() -> None:
    from dataclasses import replace

    from harness.reporting.atlas_chart import charts
    from tests.unit.test_atlas_cells import _cell

    assert render.BACK_STYLES == {"all": "green", "part": "yellow", "none": "red", "n/a": "dim", "borderline": "cyan"}
    assert len({palette.of_back(back).fill for back in COLOUR}) == len(COLOUR)  # borderline is neither amber nor grey
    assert render.BACK_GLYPHS["none"] == palette.of_back("none").glyph == "✗"
    def cached(release: str, left: int) -> object:
        return replace(_cell(release, release, back="none", word="cached"), steps=({"label": "del", "verdict": "cached",
                                                                                    "left": left},))

    row = {"torch 2.4.0 · H100": [cached("2.4.0", 2 << 30)], "torch 2.5.0 · H100": [cached("2.5.0", 1 << 30)]}
    svg = charts(row)[0][1]
    assert f'fill="{palette.of_back("none").mark}"' in svg and svg.count("<circle") == 2


def test_a_steps_colour_is_the_answers_colour_of_what_came_back_at_it() -> None:
    """`run`'s table coloured a "cached" step yellow while the grid colours a cell answered "cached in the pool"
    with nothing back red: a step is coloured by what came back at it, as a cell is."""
    assert palette.STEP_TERMINAL["cached"] == palette.STEP_TERMINAL["held"] == palette.of_back("none").terminal
    assert palette.STEP_TERMINAL["partial"] == palette.of_back("part").terminal
    assert palette.STEP_TERMINAL["released"] == palette.of_back("all").terminal
    assert palette.STEP_TERMINAL["no-signal"] == palette.of_back("n/a").terminal
