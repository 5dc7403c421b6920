"""Every output renders the one judge's answer (judgement/answer.py) and decides nothing of its own:
one committed record goes through the terminal table, matrix.md, report.html, repro.md, the atlas
and a sweep's change lines, and each shows the judge's phrase and colour for it."""
from __future__ import annotations

import html
import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from harness.judgement import answer, verdicts
from harness.judgement.cell import judge_cell
from harness.reporting import aggregate, atlas, atlas_html, atlas_runs, matrix_md, render, report_html, repro_md, sweeps
from harness.store import results

RECORDS = Path(__file__).resolve().parents[1] / "data" / "records"  # copies of records under matrix/reference
# A TF 2.16 keras loop on an H200: 45.70 MiB live in a pool of ~138 GiB mapped at the first touch, and a
# torch bug-report snippet on an H100 whose 290 MiB left are 65 MiB live, 1 MiB pool and 224 MiB of CUDA runtime.
CASES = {
    "keras-loop": ("keras-loop-tf-2.16", "tensorflow==2.16.2",  # sweeps/gpu-tensorflow-2.14-2.21-h200
                   "tf2__keras_models_in_loop.json.gz"),
    "torch-repro": ("repro/torch_del_empty_cache", "host-python3", None),  # h100-580.159.04-repro
}


def _record(case: str) -> tuple[Path, dict]:
    folder, env, name = CASES[case]
    run_dir = RECORDS / folder
    if not run_dir.is_dir():
        pytest.skip(f"{folder} is not committed here")
    paths = sorted((run_dir / env).glob(name or "*.json*"))
    record = results.load_record(paths[0])
    record["verdicts"] = verdicts.judge(record)
    return run_dir, record


@pytest.mark.parametrize("case", sorted(CASES))
def test_one_record_reads_the_same_in_every_output(case: str, tmp_path: Path) -> None:
    run_dir, record = _record(case)
    said = answer.of_cell(judge_cell(record))
    text, colour = said.text, said.colour.value
    assert said.left is not None and said.amounts is not None
    matrix = aggregate.matrix_from([record], [], "one", [(record["env"]["name"], record["scenario"]["name"])])
    cell = matrix["cells"][record["scenario"]["name"]][record["env"]["name"]]
    assert (cell["glance"]["text"], cell["glance"]["colour"]) == (text, colour)

    terminal = io.StringIO()
    Console(file=terminal, width=400, no_color=True).print(render.matrix_table(matrix, 400))
    assert text in " ".join(terminal.getvalue().split())  # the table may wrap; its words are the judge's
    assert f"**{text}**" in matrix_md.to_markdown(matrix)
    page = report_html.render(matrix, [record], vega_src="")
    assert json.dumps(text)[1:-1] in page and "g.text" in report_html._asset("report.js")
    assert f"Answer: **{text}**." in repro_md.markdown([record], Path(record["scenario"].get("path") or "x.py"))

    run = atlas_runs.Run(run_dir, "one", [record], [])
    (grid_cell,) = atlas.cells_of(run, [judge_cell(record)])
    assert (grid_cell.word, grid_cell.back) == (text, said.back)
    td = atlas_html.grid_cell([grid_cell], grid_cell.column, None)
    assert f"back-{said.back.replace('/', '')}" in td["classes"]
    head, _, trend = td["word"].partition("…")  # the grid cuts the words, never the loop's trend after them
    assert text.startswith(head) and (not trend or trend.removeprefix("; loop: ").split("/")[0] in text)
    page = atlas_html.landing(atlas.grid([grid_cell]), [grid_cell.column], [], [grid_cell])
    assert html.escape(td["word"]) in page  # the grid shows that word, in that colour

    other = json.loads(json.dumps(cell))
    other["glance"] = dict(other["glance"], back="all", text="released", word="released")
    other["steps"] = [dict(s, verdict="released") for s in other["steps"]]
    env = record["env"]["name"]
    turned = sweeps.changes({"scenarios": [record["scenario"]["name"]],
                             "cells": {record["scenario"]["name"]: {"a": other, env: cell}}}, [("1", "a"), ("2", env)])
    assert turned and turned[0]["after"] == text


def test_the_words_say_where_the_memory_is() -> None:
    _, keras = _record("keras-loop")
    said = answer.of_cell(judge_cell(keras))
    assert said.text.startswith("held by live objects: 45.70 MiB live, 138.14 GiB in the pool with the runtime's own")
    _, torch = _record("torch-repro")
    said = answer.of_cell(judge_cell(torch))
    assert said.text.startswith("partly held by live objects: 65.00 MiB live")
    assert "the runtime keeps 224.00 MiB until exit" in said.text and said.left == 66 * 2**20


def test_a_cell_whose_steps_had_no_signal_is_grey_whatever_the_exit() -> None:
    cell = {"status": "ok", "steps": [{"label": "after_del", "verdict": "no-signal"}], "exit": "returned"}
    said = answer.of_cell(cell)
    assert (said.back, said.colour.value, said.word) == ("n/a", "grey", "no signal")
    exit_only = answer.of_cell({"status": "ok", "steps": [], "exit": "returned"})
    assert (exit_only.colour.value, exit_only.word) == ("green", "back at exit")
