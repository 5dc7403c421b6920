"""The code of a pasted bug report: its code blocks, the one that runs, and what it would need that
is not there.

A report is Markdown as people paste it: fenced blocks (```` ```python ````, ```` ``` ````, ``~~~``),
blocks indented by four spaces (older templates), interpreter sessions (``>>> `` and ``... ``
prompts, their output left out). The runnable block is the longest that is Python and imports a
framework (else, for a host-memory report, one that imports a package such as numpy), unless ``--block N``
names one. A block that reads a data file the report does not come
with is refused before anything runs, with the line and the fix.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from harness import frameworks
from harness.common.errors import UsageError
from harness.running import notebook, script_imports

FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})\s*([\w+-]*)")
PROMPT = re.compile(r"^(>>>|\.\.\.)( |$)|^In \[\d*\]: ?|^\s+\.\.\.: ?")  # python's and IPython's prompts
DATA = re.compile(r"\.(csv|tsv|npy|npz|pt|pth|ckpt|h5|hdf5|pkl|pickle|parquet|jpe?g|png|bmp|tiff?|wav|mp3|"
                  r"json|jsonl|txt|bin|safetensors|onnx|tfrecords?|zip|tar|gz)$", re.I)
READERS = re.compile(r"(load|read|open|imread|from_pretrained|fromfile|loadtxt|genfromtxt)", re.I)
# Tags whose blocks are never code to run; a ```shell or ```text block may still be Python (TensorFlow's
# issue template tags its "standalone code" block `shell`), so every other block is tried as Python.
# A block that uses a framework or numpy by name is meant to be code, even where it does not parse
CODE_LIKE = re.compile(r"^(?!\s*(?:File \"|Traceback|\w*Error\b)).*\b(?:torch|tf|tensorflow|jax|jnp|np|numpy|cupy|cp|keras)\."
                       r"\w+\s*\(", re.M)
NOT_PYTHON = ("diff", "json", "yaml", "toml", "dockerfile", "ini", "csv")


@dataclass(frozen=True)
class Block:
    number: int  # 1-based among the report's code blocks
    info: str  # the fence's language tag ("python", "" ...; "indented" for a four-space block)
    source: str
    first_line: int  # 1-based line of the report where its code starts

    def _lines(self) -> list[str]:
        """Its lines with an interpreter session's prompts taken off and its output commented out (``>>>``/``...``,
        IPython's ``In [3]:``/``...:``)."""
        lines = self.source.splitlines()
        if any(PROMPT.match(line) for line in lines):
            lines = [PROMPT.sub("", line, count=1) if PROMPT.match(line) else "# " + line if line.strip() else ""
                     for line in lines]
        return lines

    def _parsed(self) -> tuple[str, str | None]:
        """(its code as Python, why that does not parse or None): prompts off, output and a notebook's ``!``/``%``
        lines commented out."""
        text = "\n".join(notebook.magic_commented(line) for line in self._lines()) + "\n"
        try:
            ast.parse(text)
        except SyntaxError as exc:
            bad = text.splitlines()[exc.lineno - 1].strip() if exc.lineno else ""
            return text, f"line {self.first_line + (exc.lineno or 1) - 1} (`{bad}`): {exc.msg}"
        except ValueError as exc:
            return text, str(exc)
        return text, None

    @property
    def python(self) -> str | None:
        """Its code as Python, or None: a tag that is never code, or code that does not parse."""
        if self.info.lower() in NOT_PYTHON:
            return None
        text, error = self._parsed()
        return None if error else text

    def syntax_error(self) -> str | None:
        """Why its code is not Python, as ``line N (`text`): message`` (report lines), or None when it parses."""
        return None if self.info.lower() in NOT_PYTHON else self._parsed()[1]

    @property
    def ipython(self) -> str:
        """Its code for an IPython shell: as ``python``, its ``!pip install`` and ``%magic`` lines as they were."""
        return "\n".join(self._lines()) + "\n"


def blocks(text: str) -> list[Block]:
    """The report's code blocks, in order."""
    found: list[Block] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        fence = FENCE.match(lines[index])
        if fence:
            marker, body = fence.group(1), []
            start = index + 1
            index += 1
            while index < len(lines) and not lines[index].strip().startswith(marker):
                body.append(lines[index])
                index += 1
            found.append(Block(len(found) + 1, fence.group(2), "\n".join(body), start + 1))
        elif lines[index].startswith("    ") and (index == 0 or not lines[index - 1].strip()):
            start, body = index, []
            while index < len(lines) and (lines[index].startswith("    ") or not lines[index].strip()):
                body.append(lines[index][4:])
                index += 1
            found.append(Block(len(found) + 1, "indented", "\n".join(body).rstrip("\n"), start + 1))
            continue
        index += 1
    return found


def _needs_a_framework(source: str) -> bool:
    modules = script_imports.imported_modules(source)
    backend = script_imports.keras_backend(source)
    return any(script_imports.frameworks_of(m.split(".")[0], backend) for m in modules)


def choose(found: list[Block], wanted: int | None, report: str) -> Block:
    """The block to run: ``wanted`` (``--block N``), else the longest Python block that imports a framework."""
    if wanted is not None:
        if not 1 <= wanted <= len(found):
            raise UsageError(f"--block {wanted}: {report} has {len(found)} code block(s); give one of 1-{len(found)}"
                             if found else f"--block {wanted}: {report} has no code block")
        if found[wanted - 1].python is None:
            raise UsageError(f"--block {wanted} of {report} (line {found[wanted - 1].first_line}) is not Python: "
                             "give the block with the code to run")
        return found[wanted - 1]
    runnable = [b for b in found if b.python and _needs_a_framework(b.python)]
    if not runnable:  # a host-memory report without a framework (numpy, pandas): a block that imports a package
        from harness.running import report_packages

        runnable = [b for b in found if b.python and report_packages.others(
            script_imports.imported_modules(b.python), brought=True)]
    code = [b for b in found if CODE_LIKE.search(b.source) and b.syntax_error()]
    if not runnable and code:  # the code is there, but is not Python as pasted: say where it stops
        block = max(code, key=lambda b: len(b.source))
        raise UsageError(f"{report}: block {block.number} (line {block.first_line}) is not Python as pasted, so nothing "
                         f"ran: {block.syntax_error()}; make the block run as pasted, or give another with --block N")
    if not runnable:
        raise UsageError(f"{report} has no Python code block that imports {frameworks.listed()} or another package "
                         f"({len(found)} code block(s) in all): paste the code in a ```python block, or give a block "
                         "with --block N")
    return max(runnable, key=lambda b: len(b.python or ""))


def missing_data(block: Block, folder: Path, report: str) -> str | None:
    """One line when the block reads a data file that is not beside the report, else None."""
    tree = ast.parse(block.python or "")
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if not READERS.search(name):
            continue
        mode = next((a.value for a in node.args[1:2] if isinstance(a, ast.Constant) and isinstance(a.value, str)), "r")
        for arg in node.args[:1]:
            if (isinstance(arg, ast.Constant) and isinstance(arg.value, str) and DATA.search(arg.value)
                    and "w" not in mode and not (folder / arg.value).exists()):
                line = block.first_line + node.lineno - 1
                return (f"{report}:{line}: the code reads {arg.value!r}, which is not beside the report: put the file "
                        "there, or make the data in the code (torch.randn, np.zeros...) so the report runs on its own")
    return None
