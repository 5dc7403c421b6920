"""The package's shape, as docs/architecture.md draws it: layers by folder, imports pointing one way, small modules."""
from __future__ import annotations

import ast
from pathlib import Path

HARNESS = Path(__file__).resolve().parents[2] / "harness"
# Lowest first: a layer may import itself and the layers before it, never the ones after.
LAYERS = ["common", "model", "frameworks", "definitions", "store", "judgement", "reporting", "measurement", "environments",
          "running", "cli", "examples"]  # examples: the README's scripts, shipped; nothing imports them
MOUNTED = {"agent", "scenarios"}  # run inside the environments, never imported by the host


def _host_modules() -> list[Path]:
    return [p for p in HARNESS.rglob("*.py") if p.relative_to(HARNESS).parts[0] not in MOUNTED]


def test_top_level_holds_only_entry_points_and_layers() -> None:
    entries = {p.name for p in HARNESS.iterdir() if p.name != "__pycache__"}
    assert entries == {"__init__.py", "__main__.py", *LAYERS, *MOUNTED}


def test_no_module_over_300_lines() -> None:
    """Scenarios aside (scripts sized by what they show), every module stays under 300 lines."""
    long = {str(p.relative_to(HARNESS)): n for p in HARNESS.rglob("*.py")
            if p.relative_to(HARNESS).parts[0] != "scenarios" and (n := len(p.read_text(encoding="utf-8").splitlines())) > 300}
    assert not long


def test_imports_point_down_the_layers() -> None:
    wrong = []
    for path in _host_modules():
        parts = path.relative_to(HARNESS).parts
        if len(parts) < 2:
            continue
        mine = LAYERS.index(parts[0])
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("harness."):
                target = node.module.split(".")[1]
                if target in MOUNTED:
                    continue
                if LAYERS.index(target) > mine:
                    wrong.append(f"{path.relative_to(HARNESS)}:{node.lineno} imports {node.module}")
    assert not wrong, "\n".join(wrong)


def _module_name(path: Path) -> str:
    parts = path.relative_to(HARNESS.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, known: set[str]) -> set[str]:
    """The harness modules ``path`` imports anywhere in it (inside functions and TYPE_CHECKING too)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("harness"):
            found |= {f"{node.module}.{a.name}" for a in node.names if f"{node.module}.{a.name}" in known}
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("harness")}
    return found & known


def test_no_import_cycles() -> None:
    """No two modules reach each other through imports, lazy ones included: a circle is a boundary
    nobody can draw (what each module is for stops being clear, and import order starts to matter)."""
    paths = {_module_name(p): p for p in _host_modules()}
    graph = {name: _imports(path, set(paths)) - {name} for name, path in paths.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan: strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in graph[node]:
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for name in sorted(graph):
        if name not in index:
            visit(name)
    assert not circles, circles


def test_lab_scripts_live_in_tools_lab_not_among_the_tests() -> None:
    """What runs on a lent GPU machine by hand is a lab script (tools/lab/), never part of tests/."""
    tests = HARNESS.parent / "tests"
    assert not sorted(str(p.relative_to(tests)) for p in tests.rglob("*.sh"))


def test_unit_tests_read_no_committed_reference() -> None:
    """Unit tests take real records from tests/data/records; matrix/reference is evidence (tests/evidence), which
    a re-run or a re-render with new rules may change."""
    import re

    reads = re.compile("/ \"reference\"|\"matrix/reference/[^\"]*\"\\)")
    modules = [path for path in sorted((HARNESS.parent / "tests" / "unit").glob("*.py")) if path.name != "test_layout.py"]
    found = [f"{path.name}:{n}" for path in modules for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if reads.search(line) and not line.lstrip().startswith("#")]
    assert not found, found
