"""Reproducing a user's bug report: their unmodified script in each environment, measured.

The script runs as ``__main__`` in a fresh container (or virtualenv) per environment; the agent
adds checkpoints at its start and end and after each statement that performs a cleanup (see
agent/instrument.py), so the same meters and verdicts apply. The output ends in a Markdown
block ready to paste into the issue thread.
"""
from __future__ import annotations

from pathlib import Path

from harness import frameworks
from harness.common.errors import UsageError
from harness.measurement.scenario import Scenario
from harness.running import notebook, script_imports

REPRO_TIMEOUT_S = 600.0
STDIN_NOTE = ("the script reads standard input, which is not connected: its reads got end-of-file "
              "(/dev/null); put its input in a file the script opens")


def script_families(source: str) -> tuple[str, ...]:
    """API families a script's own text needs, from every form of import in it."""
    modules, backend = script_imports.imported_modules(source), script_imports.keras_backend(source)
    return frameworks.families_needing(tuple(f for m in modules for f in script_imports.frameworks_of(m.split(".")[0], backend)))


def syntax_problem(path: Path) -> str | None:
    """``FILE:LINE: message`` when the script is not valid Python 3 here, else None."""
    try:
        compile(path.read_bytes(), str(path), "exec", dont_inherit=True)
    except SyntaxError as exc:  # IndentationError and TabError too
        where = f"{path}:{exc.lineno}" + (f":{exc.offset}" if exc.offset else "")
        text = f" (`{exc.text.strip()}`)" if exc.text and exc.text.strip() else ""
        return f"{where}: {exc.msg}{text}"
    except ValueError as exc:  # source with NUL bytes
        return f"{path}: {exc}"
    return None


def refuse_syntax_errors(path: Path) -> None:
    """A script that cannot run is refused before any environment is made or started."""
    problem = syntax_problem(path)
    if problem:
        raise UsageError(f"{problem}: the script does not compile, so no environment could run it; fix that line "
                         "(a Python 2 script runs with --interpreter python2.7 or --env tf1.8)")


def script_scenario(path: Path, timeout: float | None = None, plain: bool = False,
                    setenv: dict[str, str] | None = None, cells: str | None = None) -> Scenario:
    """The script as a scenario. ``plain``: a script whose imports name no framework runs too
    (family ``any``), where the user named the environment (--with, --interpreter, --image, --env).
    A notebook (.ipynb, or a .py file of ``# %%`` cells) runs its cells (``cells``: ``2-5``) in IPython."""
    if path.is_dir():
        raise UsageError(f"{path} is a directory: give the .py file")
    if not path.is_file():
        raise UsageError(f"script not found: {path} (give the path to the bug report's .py file)")
    if notebook.is_notebook(path):
        return _notebook_scenario(path, timeout, plain, setenv, cells)
    if cells:
        raise UsageError(f"--cells {cells}: {path.name} is a script, not a notebook (.ipynb, or .py with `# %%` cells)")
    needs = script_imports.script_needs(path, setenv)
    families = frameworks.families_needing(needs.frameworks) or (("any",) if plain else ())
    if not families:
        raise UsageError(f"{path} imports none of {frameworks.listed()}, directly, through its own modules or "
                         "a library known to load one: name the environment (--env, --interpreter, --image) or "
                         "what it needs (--with PKG==VER)")
    notes = (STDIN_NOTE,) if needs.reads_stdin else ()
    return Scenario(name=f"repro/{path.stem}", path=path.resolve(), families=families, technique="a user's script",
                    notes=notes, companions=tuple(str(f.relative_to(path.resolve().parent)) for f in needs.local_files),
                    title=f"{path.name}, unmodified", mode="repro", timeout=timeout or REPRO_TIMEOUT_S)


def _notebook_scenario(path: Path, timeout: float | None, plain: bool, setenv: dict[str, str] | None,
                       cells: str | None) -> Scenario:
    """A notebook's cells (or those ``cells`` names) as one scenario: what they import decides where it runs."""
    found = notebook.read_cells(path)
    bounds = notebook.parse_range(cells, len(found), path) if cells else None
    needs = script_imports.script_needs(path, setenv, text=notebook.as_python(notebook.selected(found, bounds)))
    families = frameworks.families_needing(needs.frameworks) or (("any",) if plain else ())
    if not families:
        raise UsageError(f"{path}: no cell imports any of {frameworks.listed()}: name the environment (--env, "
                         "--interpreter, --image) or what it needs (--with PKG==VER)")
    part = f", cells {bounds[0]}-{bounds[1]}" if bounds else ""
    return Scenario(name=f"repro/{path.stem}", path=path.resolve(), families=families, technique="a user's notebook",
                    notes=(STDIN_NOTE,) if needs.reads_stdin else (),
                    companions=tuple(str(f.relative_to(path.resolve().parent)) for f in needs.local_files),
                    title=f"{path.name}{part}, its cells in one IPython shell", mode="repro",
                    timeout=timeout or REPRO_TIMEOUT_S, notebook=True, cells=bounds)
