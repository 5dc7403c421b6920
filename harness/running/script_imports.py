"""Which frameworks a user's script needs, from what it imports, as scripts come in bug reports.

Every import form counts (``import a, b``, ``from x import y``, ``import x as y``, imports inside
functions and ``try:``); the script's own modules beside it are followed (``from model import
Net`` where model.py imports torch); popular libraries stand for the framework they load
(``from transformers import ...`` -> torch; keras 3 -> the KERAS_BACKEND the script or --setenv
sets, else TensorFlow). Python 2 scripts do not parse with ``ast``: a line-based reading stands in.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

from harness import frameworks

_KERAS_BACKEND = re.compile(r"""KERAS_BACKEND['"]\s*(?:\]\s*=|,)\s*['"](tensorflow|jax|torch)['"]""")
_IMPORT_LINE = re.compile(r"^\s*import\s+([\w., \t]+)", re.MULTILINE)
_FROM_LINE = re.compile(r"^\s*from\s+(\.*[\w.]*)\s+import\b", re.MULTILINE)
MAX_LOCAL_FILES = 200


@dataclass
class ScriptNeeds:
    frameworks: tuple[str, ...]  # in the registry's order
    why: dict[str, str] = field(default_factory=dict)  # framework -> how the script reaches it
    local_modules: tuple[str, ...] = ()  # the script's own modules that were read
    local_files: tuple[Path, ...] = ()  # and their files, to travel with the script
    reads_stdin: bool = False  # the script itself reads standard input (not connected in a cell)


def imported_modules(source: str) -> set[str]:
    """Dotted names of every module the source imports (relative ones keep their leading dots)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):  # a Python 2 script
        names = {m.strip().split()[0] for line in _IMPORT_LINE.findall(source) for m in line.split(",") if m.strip()}
        return names | set(_FROM_LINE.findall(source))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            found.add(base)
            if node.level:  # from . import model: each name may be a module
                found |= {base.rstrip(".") + "." + alias.name if node.module else base + alias.name for alias in node.names}
    return found


def script_needs(path: Path, setenv: dict[str, str] | None = None, text: str | None = None) -> ScriptNeeds:
    """What ``path`` needs, following its local modules (bounded: MAX_LOCAL_FILES files); ``text``:
    its text as Python where the file is not (a notebook's cells)."""
    folder = path.resolve().parent
    why: dict[str, str] = {}
    todo: list[Path] = [path.resolve()]
    seen: set[Path] = set()
    local: list[str] = []
    backend = (setenv or {}).get("KERAS_BACKEND")
    stdin = False
    while todo and len(seen) < MAX_LOCAL_FILES:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        mine = text is not None and current == path.resolve()
        source = text if mine and text is not None else current.read_text(encoding="utf-8", errors="replace")
        stdin = stdin if current != path.resolve() else reads_stdin(source)
        backend = backend or keras_backend(source)
        where = current.name if current != path.resolve() else ""
        for module in sorted(imported_modules(source)):
            files = _local_files(module, folder, current.parent)
            if files:
                local.append(module.lstrip("."))
                todo += files
                continue
            top = module.split(".")[0]
            for framework in frameworks_of(top, backend):
                why.setdefault(framework, (f"{where} imports {module}" if where else f"imports {module}")
                               + ("" if top == framework else f" ({top} loads {framework})"))
    return ScriptNeeds(frameworks=tuple(f for f in frameworks.names() if f in why), why=why,
                       local_modules=tuple(dict.fromkeys(local)),
                       local_files=tuple(sorted(p for p in seen if p != path.resolve())), reads_stdin=stdin)


def frameworks_of(top: str, keras_backend: str | None) -> tuple[str, ...]:
    if top == "keras":  # Keras 3 runs on the backend KERAS_BACKEND names
        return (keras_backend or "tensorflow",)
    return frameworks.loaded_by(top)


def keras_backend(source: str) -> str | None:
    found = _KERAS_BACKEND.search(source)
    return found.group(1) if found else None


def _local_files(module: str, folder: Path, here: Path) -> list[Path]:
    """The script's own files a module name refers to: name.py, or every .py of package name/."""
    dots = len(module) - len(module.lstrip("."))
    base = here if dots else folder
    for _ in range(max(dots - 1, 0)):
        base = base.parent
    parts = [p for p in module.lstrip(".").split(".") if p]
    if not parts:
        return [p for p in [base / "__init__.py"] if p.is_file()]
    for depth in range(len(parts), 0, -1):
        target = base.joinpath(*parts[:depth])
        if target.with_suffix(".py").is_file():
            return [target.with_suffix(".py")]
        if target.is_dir() and (depth > 1 or (target / "__init__.py").is_file() or any(target.glob("*.py"))):
            return sorted(target.rglob("*.py"))[:MAX_LOCAL_FILES]
    return []


_STDIN = re.compile(r"\bsys\.stdin\b|(?<![\w.])(?:raw_)?input\s*\(|\bfileinput\b")


def reads_stdin(source: str) -> bool:
    """Whether the script reads standard input (cells run with stdin at end-of-file)."""
    return bool(_STDIN.search(source))
