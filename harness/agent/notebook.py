"""A notebook's code cells, run in order in one real IPython shell, as a Jupyter kernel runs them.

Runs INSIDE the environment: stdlib only, Python 2.7 and 3.5+ (IPython itself is the environment's
own, or the copy the host prepared for this Python and mounted: spec ``ipython``). What a kernel
keeps, this keeps: the output history (``Out``, ``_``, ``__``, ``___``, ``_2``), ``In``, and after a
cell that raised, its traceback (``sys.last_traceback``, the shell's ``InteractiveTB.tb``); a cell
that raises shows its traceback and the next cell runs. Magics and ``!`` lines run as IPython runs
them, except the install lines (``%pip``, ``%conda``, ``!pip``...), which are listed, not run: the
environment is made from pins. Checkpoints: the start (the shell made), each cleanup line inside a
cell (``cell 3, line 2: del m``, through an AST transformer of the shell), the end of every cell.
The host reads the same cells (harness/running/notebook.py) to check them before the run.
"""
import json
import os
import re
import sys

PERCENT = re.compile(r"^# ?%%(?!%)(.*)$")
MARKDOWN = re.compile(r"\[\s*(markdown|md|raw)\s*\]")
NOT_RUN = re.compile(r"^\s*(?:%{1,2}|!)\s*(?:pip|conda|mamba|micromamba|uv)\b|^\s*!\s*(?:python\s+-m\s+)?pip\b")
HISTORY = re.compile(r"^_+\d*$|^_(i+|i\d+|ih|oh|dh)$|^In$")  # what reaches an output through Out does too
NOTEBOOK_ROOTS = ("Out",)


def read_cells(path):
    """The code cells' sources, in order (an .ipynb file, or a percent-format .py file)."""
    with open(path, "rb") as handle:
        text = handle.read().decode("utf-8", "replace")
    if path.endswith(".ipynb"):
        cells = json.loads(text)["cells"]
        sources = [c.get("source", "") for c in cells if c.get("cell_type") == "code"]
        return ["".join(s) if isinstance(s, list) else s for s in sources]
    blocks = [[True, []]]
    for line in text.splitlines():
        marker = PERCENT.match(line)
        if marker:
            blocks.append([not MARKDOWN.search(marker.group(1)), []])
        else:
            blocks[-1][1].append(line)
    code = ["\n".join(lines).strip("\n") for is_code, lines in blocks if is_code]
    if code and not any(line.strip() and not line.lstrip().startswith("#") for line in code[0].splitlines()):
        code = code[1:]
    return code


def without_installs(source):
    """The cell with its install lines made ``pass`` (same line numbers), and those lines."""
    kept, skipped = [], []
    for number, line in enumerate(source.splitlines(), 1):
        if NOT_RUN.match(line):
            skipped.append((number, line.strip()))
            line = line[:len(line) - len(line.lstrip())] + "pass"
        kept.append(line)
    return "\n".join(kept), skipped


def import_ipython(folder):
    """IPython's InteractiveShell (the environment's own, else the copy in ``folder``) and which it is."""
    try:
        from IPython.core.interactiveshell import InteractiveShell
        return InteractiveShell, "the environment's own"
    except ImportError:
        if not folder or not os.path.isdir(folder):
            raise RuntimeError("IPython is not installed in this environment and no copy was given for Python %d.%d"
                               % sys.version_info[:2])
        sys.path.append(folder)
        from IPython.core.interactiveshell import InteractiveShell
    return InteractiveShell, "installed by the tool for this Python"


def make_shell(InteractiveShell):
    """One shell, as a kernel's: uncoloured tracebacks (they go to a log, not a terminal)."""
    shell = InteractiveShell.instance()
    tb = shell.InteractiveTB
    try:
        if hasattr(tb, "set_theme_name"):  # IPython 9: themes, in lower case
            shell.colors = "nocolor"
            tb.set_theme_name("nocolor")
        else:
            shell.colors = "NoColor"
            tb.set_colors("NoColor")
    except Exception:  # a traceback in colour is still the traceback
        pass
    return shell


def history_roots(roots):
    """What holds memory, named as a notebook user knows it: ``Out[2]`` rather than ``_`` or ``_2``
    (the same object), and the traceback IPython keeps of the last error."""
    kept = [(name, value) for name, value in roots if not HISTORY.match(name)]
    kept.sort(key=lambda pair: pair[0] not in NOTEBOOK_ROOTS)
    last = getattr(sys, "last_value", None) or getattr(sys, "last_exc", None)
    if last is not None:
        kept.append(("sys.last_value", last))
    return kept


def _transformer(state, instrument, frameworks, sites, mark):
    import ast

    class Checkpoints(ast.NodeTransformer):
        """Adds the checkpoints to each cell, as IPython parsed it (magics already Python)."""

        def visit_Module(self, node):
            instrument.instrument_tree(node, "cell %d" % state["cell"], state["lines"], frameworks, sites)
            mark.grow()
            return node
    return Checkpoints()


def run(path, spec, channel, hooks):
    """Run the notebook's cells; what the record keeps of it (cells run, errors, lines not run).
    ``hooks``: the agent's own functions (make_checkpoint, numbered, hide, frameworks, look)."""
    import instrument  # beside this file

    sources = read_cells(path)
    first, last = spec.get("cells") or (1, len(sources))
    sites = []
    checkpoint = hooks["make_checkpoint"](channel, hooks["look"])
    mark = hooks["numbered"](checkpoint, sites)
    channel.loops = mark.counts
    sys.argv = [path]
    folder = os.path.dirname(os.path.abspath(path))
    if sys.path and sys.path[0] == hooks["agent_dir"]:
        sys.path[0] = folder
    else:
        sys.path.insert(0, folder)
    hooks["hide"]()
    shell_class, origin = import_ipython(spec.get("ipython"))
    shell = make_shell(shell_class)
    hooks["main"][0] = shell.user_module
    shell.user_ns[instrument.CHECKPOINT_NAME] = mark
    shell.user_ns_hidden[instrument.CHECKPOINT_NAME] = mark  # %who and %whos do not list it
    state = {"cell": 0, "lines": []}
    shell.ast_transformers.append(_transformer(state, instrument, hooks["frameworks"], sites, mark))
    shell.execution_count = first  # cell n is In[n], as in a kernel run from the top
    import IPython
    found = {"cells": [first, last], "errors": [], "not_run": [], "ipython": IPython.__version__, "origin": origin}
    checkpoint("start")
    for number in range(first, last + 1):
        source, skipped = without_installs(sources[number - 1])
        found["not_run"].extend("cell %d, line %d: %s" % (number, n, text) for n, text in skipped)
        state.update(cell=number, lines=sources[number - 1].splitlines())
        result = shell.run_cell(source, store_history=True)
        error = getattr(result, "error_before_exec", None) or getattr(result, "error_in_exec", None)
        if error is not None:
            found["errors"].append({"cell": number, "type": type(error).__name__, "message": str(error)[:500]})
        sys.stdout.flush()
        checkpoint("end of cell %d" % number)
    checkpoint("end", search=True)
    return found
