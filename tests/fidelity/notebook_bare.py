"""A notebook run bare: its code cells in order in one IPython shell, as a kernel runs them, and nothing else.

The reference `repro NOTEBOOK` is compared with (tests/integration/test_notebooks.py, and the GPU lab):
written apart from the tool's agent, on IPython's public API only. Install lines (%pip, !pip) are
skipped, as under repro (an environment is made from pins); every other magic runs.

    python notebook_bare.py NOTEBOOK.ipynb [IPYTHON_FOLDER]

IPYTHON_FOLDER: appended to sys.path when the interpreter has no IPython of its own.
"""
import json
import re
import sys

INSTALL = re.compile(r"^\s*(?:%{1,2}|!)\s*(?:pip|conda|mamba|micromamba|uv)\b")


def cells(path):
    if path.endswith(".ipynb"):
        with open(path) as handle:
            notebook = json.load(handle)
        return ["".join(c["source"]) if isinstance(c["source"], list) else c["source"]
                for c in notebook["cells"] if c["cell_type"] == "code"]
    with open(path) as handle:
        text = handle.read()
    parts = re.split(r"^# ?%%(?!%).*$", text, flags=re.MULTILINE)
    return [p.strip("\n") for p in parts[1:]]  # a percent file's code follows its markers


def main(argv):
    if len(argv) > 2:
        sys.path.append(argv[2])
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    nine = hasattr(shell.InteractiveTB, "set_theme_name")  # IPython 9 names its themes in lower case
    shell.colors = "nocolor" if nine else "NoColor"
    shell.InteractiveTB.set_theme_name("nocolor") if nine else shell.InteractiveTB.set_colors("NoColor")
    for source in cells(argv[1]):
        lines = ["pass" if INSTALL.match(line) else line for line in source.splitlines()]
        shell.run_cell("\n".join(lines), store_history=True)
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
