"""How a pasted report's code ran, so that it is replayed the same way: as a script, or in IPython.

In IPython (a Jupyter or Colab kernel, the ``ipython`` REPL) a bare expression's value stays in ``Out``
and a failing cell's traceback is kept, so ``del x`` frees nothing there that a script frees. A report
says so in its words ("run in IPython, one line at a time", "in a Colab notebook", "in the REPL") or in its
code (``In [3]:`` or ``>>>`` prompts, ``!pip`` lines). Replayed in IPython, each prompt's statement (or,
where the report ran it line by line, each top-level statement) is a cell; otherwise the block is one cell.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from harness.running.issue_text import Block

INTERACTIVE = re.compile(r"\b(ipython|jupyter(?:lab)?|notebook|colab|repl|interactive (?:shell|session|interpreter)|"
                         r"python (?:shell|console|interpreter))\b", re.I)
LINE_BY_LINE = re.compile(r"\b(?:one|each|line) (?:line|statement|cell)?\s*(?:at a time|by line|after (?:an)?other)\b|"
                          r"\bline[- ]by[- ]line\b", re.I)
# "not in colab", and "tested it locally and on colab" (jax-ml/jax#6520): a script as well, replayed as one
NOT_INTERACTIVE = re.compile(r"\b(?:not|never|without|outside)\s+(?:in\s+)?(?:a\s+)?(?:ipython|jupyter|notebook|colab)\b|"
                             r"\blocally\b|\bas a script\b", re.I)
IPYTHON_PROMPT = re.compile(r"^In \[\d*\]:", re.M)
PYTHON_PROMPT = re.compile(r"^>>> ", re.M)
SHELL_LINE = re.compile(r"^\s*[!%]", re.M)
URL = re.compile(r"https?://\S+|\]\([^)]*\)")


@dataclass(frozen=True)
class Replay:
    way: str  # "script" or "ipython"
    why: str  # what in the report says so (its line), or "asked (--as)"
    per_statement: bool = False  # each top-level statement a cell (prompts, "one line at a time")


def way(prose: list[str], block: Block, asked: str | None = None) -> Replay:
    """How to replay ``block``: ``asked`` (``--as``) decides; else the block's prompts, else the report's words
    (``prose``: its lines outside code, 1-based by index + 1)."""
    source = block.source
    prompts = bool(IPYTHON_PROMPT.search(source) or PYTHON_PROMPT.search(source))
    line_by_line = next((i + 1 for i, text in enumerate(prose) if LINE_BY_LINE.search(text)), None)
    if asked:
        return Replay(asked, "asked (--as)", asked == "ipython" and (prompts or line_by_line is not None))
    if IPYTHON_PROMPT.search(source):
        return Replay("ipython", f"its code has IPython's In [n]: prompts (line {block.first_line})", True)
    if PYTHON_PROMPT.search(source):
        return Replay("ipython", f"its code is an interpreter session, >>> prompts (line {block.first_line})", True)
    words = [URL.sub(" ", text) for text in prose]  # a link to a Colab gist is where the team ran it, not how
    said = next(((i + 1, m.group(0)) for i, text in enumerate(words) if (m := INTERACTIVE.search(text))
                 and not NOT_INTERACTIVE.search(text)), None)
    if said:
        how = " one line at a time" if line_by_line else ""
        return Replay("ipython", f"the report says it ran in {said[1]}{how} (line {said[0]})", line_by_line is not None)
    if SHELL_LINE.search(source):
        return Replay("ipython", f"its code has notebook shell lines (!pip, %magic) (line {block.first_line})")
    return Replay("script", "")


def as_cells(python: str, per_statement: bool) -> str:
    """The code in the percent format (``# %%`` cells) the notebook runner reads: each top-level statement a
    cell (comments before it go with it), or the whole code one cell."""
    if not per_statement:
        return "# %%\n" + python
    lines = python.splitlines()
    starts = [node.lineno - 1 for node in ast.parse(python).body]
    if not starts:
        return "# %%\n" + python
    starts[0] = 0
    cells = ["\n".join(lines[a:b]).strip("\n") for a, b in zip(starts, [*starts[1:], len(lines)], strict=True)]
    return "".join(f"# %%\n{cell}\n" for cell in cells)
