"""A notebook as repro reads it on the host: its code cells, the part asked for, the install lines it
skips, its imports, and one clear line for what is not a notebook."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import ROOT

from harness.common.errors import UsageError
from harness.running import notebook, repro

NOTEBOOKS = ROOT / "tests" / "repro" / "notebooks"


def test_an_ipynb_gives_its_code_cells_numbered_as_a_fresh_kernel_numbers_them() -> None:
    cells = notebook.read_cells(NOTEBOOKS / "kernel_keeps.ipynb")
    assert [c.number for c in cells] == list(range(1, 8))  # the markdown cell is not numbered
    assert cells[0].source.startswith("class Big(object):") and cells[0].source.endswith("\nb")
    assert cells[4].source.splitlines()[0] == "%pip install torch==2.0.0"


def test_a_percent_file_skips_its_header_and_markdown_cells() -> None:
    path = NOTEBOOKS / "kernel_keeps_percent.py"
    assert notebook.is_notebook(path) and not notebook.is_notebook(ROOT / "tests" / "repro" / "torch_model_loop.py")
    cells = notebook.read_cells(path)
    assert len(cells) == 2
    assert cells[0].source.startswith("class Big(object):") and cells[1].source.startswith("import gc, sys")


def test_install_lines_are_listed_and_magics_read_as_comments(tmp_path: Path) -> None:
    cells = notebook.read_cells(NOTEBOOKS / "kernel_keeps.ipynb")
    assert notebook.not_run_lines(cells) == ["cell 5, line 1: %pip install torch==2.0.0"]
    text = notebook.as_python([notebook.Cell(1, "%%time\nimport torch\nfiles = !ls\n!pip install jax\nx = 1")])
    assert text.splitlines()[:4] == ["# %%time", "import torch", "# files = !ls", "# !pip install jax"]
    assert notebook.not_run_lines([notebook.Cell(3, "x = 1\n  !pip install jax")]) == ["cell 3, line 2: !pip install jax"]


@pytest.mark.parametrize(("asked", "bounds"), [("2-5", (2, 5)), ("3", (3, 3)), ("2-", (2, 7)), (" 1 - 7 ", (1, 7))])
def test_cells_asked_for_by_number(asked: str, bounds: tuple[int, int]) -> None:
    assert notebook.parse_range(asked, 7, Path("n.ipynb")) == bounds


@pytest.mark.parametrize(("asked", "said"), [("0-3", "has code cells 1-7"), ("5-3", "has code cells 1-7"),
                                             ("8", "has code cells 1-7"), ("two", "give a cell or a range")])
def test_cells_it_does_not_have_are_refused_in_one_line(asked: str, said: str) -> None:
    with pytest.raises(UsageError, match=said):
        notebook.parse_range(asked, 7, Path("n.ipynb"))


def test_a_notebook_that_is_not_json_is_refused_with_the_fix(tmp_path: Path) -> None:
    broken = tmp_path / "broken.ipynb"
    broken.write_text('{"cells": [ {"cell_type": "code", "source": "x = 1"')  # cut short, as a bad download is
    with pytest.raises(UsageError, match=r"broken.ipynb is not a notebook: not JSON .*File > Download > .ipynb"):
        repro.script_scenario(broken)


def test_an_nbformat_3_notebook_and_one_without_code_are_refused(tmp_path: Path) -> None:
    old = tmp_path / "old.ipynb"
    old.write_text(json.dumps({"nbformat": 3, "worksheets": [{"cells": []}]}))
    with pytest.raises(UsageError, match="nbformat 3 file: `jupyter nbconvert --to notebook --nbformat 4`"):
        notebook.read_cells(old)
    empty = tmp_path / "empty.ipynb"
    empty.write_text(json.dumps({"nbformat": 4, "cells": [{"cell_type": "markdown", "source": "# only words"}]}))
    with pytest.raises(UsageError, match="has no code cell to run"):
        notebook.read_cells(empty)


def test_the_scenario_of_a_notebook_needs_what_its_cells_import() -> None:
    item = repro.script_scenario(NOTEBOOKS / "torch_out_history.ipynb", cells="1-3")
    assert item.notebook and item.cells == (1, 3) and item.families == ("torch",)
    assert item.title == "torch_out_history.ipynb, cells 1-3, its cells in one IPython shell"
    with pytest.raises(UsageError, match="imports none of|no cell imports"):
        repro.script_scenario(NOTEBOOKS / "kernel_keeps.ipynb")  # no framework and no environment named
    assert repro.script_scenario(NOTEBOOKS / "kernel_keeps.ipynb", plain=True).families == ("any",)


def test_cells_asked_of_a_script_are_refused() -> None:
    with pytest.raises(UsageError, match="is a script, not a notebook"):
        repro.script_scenario(ROOT / "tests" / "repro" / "torch_model_loop.py", cells="2-3")


def test_bad_input_is_one_line_with_the_fix_and_exit_2(tmp_path: Path) -> None:
    """A notebook that is not JSON, a report without a Python block, a version that does not parse,
    a block that reads data it does not come with: refused before anything runs, in one line."""
    from helpers import harness_cli

    (tmp_path / "cut.ipynb").write_text('{"cells": [')
    (tmp_path / "words.md").write_text("It leaks on torch 2.1.0.\n")
    (tmp_path / "data.md").write_text("```python\nimport torch\nx = torch.load('w.pt')\n```\n")
    (tmp_path / "nb.ipynb").write_text(json.dumps({"nbformat": 4, "cells": [{"cell_type": "code", "source": "import torch"}]}))
    cases = {("cut.ipynb",): "is not a notebook: not JSON", ("words.md",): "has no Python code block",
             ("data.md",): "the code reads 'w.pt', which is not beside the report",
             ("nb.ipynb", "--cells", "2-3"): "has code cells 1-1"}
    for args, said in cases.items():
        done = harness_cli("repro", str(tmp_path / args[0]), *args[1:], "--results", str(tmp_path / "r"))
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        assert done.returncode == 2 and len(lines) == 1 and said in lines[0], (args, done.stderr)
