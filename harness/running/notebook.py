"""A notebook as `repro` reads it: its code cells in order, from a ``.ipynb`` file or a ``.py`` file
in the percent format (``# %%`` cell markers, as VS Code, Spyder and jupytext write them).

The host reads the cells to refuse bad input before anything starts (a file that is not a
notebook, a ``--cells`` range it does not have) and to know which frameworks the cells import;
the agent reads the same file again where it runs (agent/notebook.py) and runs the cells in a real
IPython shell. Cells are numbered as a fresh kernel numbers them when run from the top: the n-th
code cell is ``In[n]``, so "cell 2" and ``Out[2]`` are one cell.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from harness.common.errors import UsageError

PERCENT = re.compile(r"^# ?%%(?!%)(.*)$")  # `# %%`, `# %% [markdown]`, `#%%`
MARKDOWN = re.compile(r"\[\s*(markdown|md|raw)\s*\]")
# Install magics and shell lines: listed in the record, not run (an environment is made from pins).
NOT_RUN = re.compile(r"^\s*(?:%{1,2}|!)\s*(?:pip|conda|mamba|micromamba|uv)\b|^\s*!\s*(?:python\s+-m\s+)?pip\b")
_MAGIC = re.compile(r"^\s*(?:%{1,2}|!)")
_ASSIGN_SHELL = re.compile(r"^(\s*[\w.,\s]+=\s*)(?:%|!)")  # `files = !ls`, `t = %timeit -o f()`


@dataclass(frozen=True)
class Cell:
    number: int  # 1-based among the code cells: the cell's In[n] in a fresh kernel run from the top
    source: str


def is_notebook(path: Path) -> bool:
    """A ``.ipynb`` file, or a ``.py`` file whose lines mark cells with ``# %%``."""
    if path.suffix == ".ipynb":
        return True
    if path.suffix != ".py" or not path.is_file():
        return False
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return any(PERCENT.match(line) for line in text.splitlines())


def _ipynb_cells(path: Path) -> list[Cell]:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UsageError(f"{path} is not a notebook: not JSON ({exc}); give the .ipynb file as Jupyter saved it "
                         "(File > Download > .ipynb), or its code as a .py file") from exc
    cells = document.get("cells") if isinstance(document, dict) else None
    if not isinstance(cells, list):
        old = isinstance(document, dict) and "worksheets" in document
        raise UsageError(f"{path} is not a notebook of nbformat 4 (no 'cells' list"
                         + ("; an nbformat 3 file: `jupyter nbconvert --to notebook --nbformat 4` converts it)" if old
                            else "): give the .ipynb file as Jupyter saved it"))
    code = []
    for cell in cells:
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            source = cell.get("source", "")
            code.append("".join(source) if isinstance(source, list) else str(source))
    return [Cell(i, text) for i, text in enumerate(code, start=1)]


def _percent_cells(path: Path) -> list[Cell]:
    """Cells of a percent-format file; lines before the first marker are a cell of their own when
    they hold code (jupytext's header comments do not)."""
    blocks: list[tuple[bool, list[str]]] = [(True, [])]
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        marker = PERCENT.match(line)
        if marker:
            blocks.append((not MARKDOWN.search(marker.group(1)), []))
        else:
            blocks[-1][1].append(line)
    code = ["\n".join(lines).strip("\n") for is_code, lines in blocks if is_code]
    if code and not any(line.strip() and not line.lstrip().startswith("#") for line in code[0].splitlines()):
        code = code[1:]  # a header of comments only
    return [Cell(i, text) for i, text in enumerate(code, start=1)]


def read_cells(path: Path) -> list[Cell]:
    """The notebook's code cells, numbered; UsageError when it has none to run."""
    if not path.is_file():
        raise UsageError(f"notebook not found: {path} (give the path to the .ipynb file)")
    cells = _ipynb_cells(path) if path.suffix == ".ipynb" else _percent_cells(path)
    if not any(cell.source.strip() for cell in cells):
        raise UsageError(f"{path} has no code cell to run: a notebook with at least one code cell, please")
    return cells


def parse_range(text: str, count: int, path: Path) -> tuple[int, int]:
    """``--cells 2-5`` (or ``3``, ``2-``): the first and last cell to run, within the notebook's ``count``."""
    found = re.fullmatch(r"\s*(\d+)\s*(?:(-)\s*(\d*)\s*)?", text or "")
    if not found:
        raise UsageError(f"--cells {text!r}: give a cell or a range of cells by number, as `--cells 2-5` or `--cells 3`")
    first = int(found.group(1))
    last = int(found.group(3)) if found.group(3) else (count if found.group(2) else first)
    if not 1 <= first <= last <= count:
        raise UsageError(f"--cells {text}: {path.name} has code cells 1-{count}; give a range within them")
    return first, last


def selected(cells: list[Cell], bounds: tuple[int, int] | None) -> list[Cell]:
    return [c for c in cells if bounds is None or bounds[0] <= c.number <= bounds[1]]


def not_run_lines(cells: list[Cell]) -> list[str]:
    """``cell 1, line 1: %pip install torch==2.0``: the install lines a run lists and skips."""
    return [f"cell {c.number}, line {n}: {line.strip()}" for c in cells
            for n, line in enumerate(c.source.splitlines(), start=1) if NOT_RUN.match(line)]


def as_python(cells: list[Cell]) -> str:
    """The cells' code as plain Python, magics and shell lines made comments, for reading imports."""
    lines = []
    for cell in cells:
        lines += [magic_commented(line) for line in cell.source.splitlines()]
        lines.append("")
    return "\n".join(lines)


def magic_commented(line: str) -> str:
    """A notebook's line as plain Python: a magic or shell line (``%time``, ``!pip install``, ``files = !ls``)
    made a comment, any other as it is (a pasted report's Colab cell is read the same way)."""
    if _MAGIC.match(line) or _ASSIGN_SHELL.match(line):
        return line[:len(line) - len(line.lstrip())] + "# " + line.lstrip()
    return line
