"""`harness cdi-spec` beside `nvidia-ctk cdi generate` on the same host: what each gives a container.

Prints one Markdown table: device nodes, libraries (by name without version: the toolkit mounts
libcuda.so.580.159.04 at its host path and its hooks make the links and the linker cache, the
harness mounts libcuda.so.1 in the loader's default folder), tools, hooks and variables, each
marked as in both specs or in one only.

Usage: python compare_cdi_specs.py TOOLKIT_SPEC(.yaml|.json) HARNESS_SPEC.json [--json OUT]
"""
from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any


def load(path: Path) -> dict[str, Any]:
    text = path.read_text()
    if path.suffix == ".json":
        return json.loads(text)
    import yaml  # the toolkit writes YAML by default; PyYAML is on the GPU machine

    return yaml.safe_load(text)


def _edits(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """Every containerEdits a request for nvidia.com/gpu=all applies: the spec's own and device all's."""
    edits = [spec.get("containerEdits") or {}]
    edits += [d.get("containerEdits") or {} for d in spec.get("devices", []) if d.get("name") == "all"]
    return edits


def contents(spec: dict[str, Any]) -> dict[str, set[str]]:
    """What a container gets, by kind; files by name so that the two layouts compare."""
    out: dict[str, set[str]] = {"device node": set(), "library": set(), "tool or other file": set(), "hook": set(),
                                "variable": set()}
    for edit in _edits(spec):
        out["device node"] |= {n["path"] for n in edit.get("deviceNodes") or []}
        for mount in edit.get("mounts") or []:
            name = os.path.basename(mount["containerPath"])
            if ".so" in name:  # libcuda.so.580.159.04 (the toolkit, its hook links .so.1) ~ libcuda.so.1 (harness)
                out["library"].add(name[:name.index(".so") + 3])
            else:
                out["tool or other file"].add(name)
        for hook in edit.get("hooks") or []:
            args = hook.get("args") or []
            out["hook"].add(args[1] if len(args) > 1 else hook.get("path", "?"))  # nvidia-cdi-hook's subcommand
        out["variable"] |= {e.split("=", 1)[0] for e in edit.get("env") or []}
    return out


def compare(toolkit: dict[str, Any], ours: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(kind, name, where) rows: where is 'both', 'nvidia-ctk only' or 'harness only'."""
    theirs, mine = contents(toolkit), contents(ours)
    rows = []
    for kind in theirs:
        for name in sorted(theirs[kind] | mine[kind]):
            where = "both" if name in theirs[kind] and name in mine[kind] else (
                "nvidia-ctk only" if name in theirs[kind] else "harness only")
            rows.append((kind, name, where))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("toolkit", type=Path)
    parser.add_argument("harness", type=Path)
    parser.add_argument("--json", type=Path, help="write the rows here as well")
    args = parser.parse_args()
    rows = compare(load(args.toolkit), load(args.harness))
    print("| what | name | in |\n|---|---|---|")
    for kind, name, where in rows:
        print(f"| {kind} | `{name}` | {where} |")
    counts = {w: sum(1 for r in rows if r[2] == w) for w in ("both", "nvidia-ctk only", "harness only")}
    print(f"\n{counts}")
    if args.json:
        args.json.write_text(json.dumps([dict(zip(("what", "name", "in"), r, strict=True)) for r in rows], indent=1) + "\n")


if __name__ == "__main__":
    main()
