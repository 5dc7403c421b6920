"""What a scenario file declares, read without running it.

A scenario is a Python file run by the agent inside an environment. It declares itself in a
module-level ``META = {...}`` literal, read here with ``ast`` so the host never executes
scenario code:

    META = {
        "families": ["torch"],          # API families it applies to (torch, tf1, tf2, jax, cupy, any)
        "technique": "del + empty_cache",
        "seed": "004_be17292fde94c561.txt",   # the article it comes from, if any
        "params": {"gib": 1.0},         # defaults; overridable per run
        "env": {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"},
        "timeout": 300,
        "cleanup": ["after_del", "after_empty_cache"],   # optional; default: every label after "peak"
        "variants": {"no_growth": {"params": {"growth": False}, "env": {}}},   # optional: more cells
        "cpu_params": {"gib": 0.5},     # optional: overrides when the cell has no GPU (CPU compute
                                        # is slow; the memory signal only needs >= 128 MiB there)
        "meter": "rss",                 # optional: judge on this meter (pinned host memory)
        "gpu_only": "torch's CUDA caching allocator ...",  # optional: what it shows exists only on a
                                        # GPU; a cell that measured no GPU answers n/a with this reason
        "since": {"torch": ["2.1", "PYTORCH_CUDA_ALLOC_CONF's expandable_segments"]},  # optional: the
                                        # first release with what it uses; an older one answers unsupported
    }

A variant is the same file run with some parameters and/or environment variables changed; it is
its own row, named ``family/name@variant``.

Checkpoint labels: "ready" is the floor (framework and device initialised), "peak" the most the
scenario holds; the labels after the peak are cleanup steps, each judged by verdicts.py.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast

from packaging.version import InvalidVersion, Version

from harness.common.errors import UsageError
from harness.common.meta import ScenarioMeta, literal_meta

KNOWN_KEYS = ScenarioMeta.__required_keys__ | ScenarioMeta.__optional_keys__  # common/meta.ScenarioMeta's


@dataclass(frozen=True, kw_only=True)
class Scenario:
    name: str
    path: Path
    families: tuple[str, ...] = ("any",)
    technique: str = ""
    title: str = ""
    seed: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    timeout: float | None = None
    cleanup: tuple[str, ...] | None = None
    variants: dict[str, dict[str, Any]] = field(default_factory=dict)
    cpu_params: dict[str, Any] = field(default_factory=dict)
    meter: str | None = None  # judge on this meter (e.g. "rss" for pinned host memory)
    gpu_only: str = ""  # what it shows exists only on a GPU (judgement/gpu_only.py)
    mode: str = "scenario"  # "repro": a user's unmodified script, checkpoints added by the agent
    notes: tuple[str, ...] = ()  # repro: what a reader must know about how the script ran (stdin, ...)
    companions: tuple[str, ...] = ()  # repro: the script's own modules it imports, relative to its folder
    argv: tuple[str, ...] = ()  # repro: the script's own arguments (`repro train.py -- --lr 1e-3`)
    launch: tuple[str, ...] = ()  # repro: a launcher's argv, "{python}"/"{script}" for the interpreter and the script
    command: str = ""  # repro: the command as the user gave it, for the record
    notebook: bool = False  # repro: a notebook's cells, run in one IPython shell (agent/notebook.py)
    cells: tuple[int, int] | None = None  # repro of a notebook: the first and last cell to run (--cells)

    def applies_to(self, family: str) -> bool:
        return "any" in self.families or family in self.families


def _meta(tree: ast.Module, path: Path) -> ScenarioMeta:
    try:
        value = literal_meta(tree)
    except ValueError as exc:
        raise UsageError(f"{path}: META must be a literal dict ({exc}); write plain values only") from exc
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise UsageError(f"{path}: META must be a dict, found {type(value).__name__}")
    return cast(ScenarioMeta, value)  # its keys checked by load against KNOWN_KEYS


def _since_entry(entry: Any) -> bool:
    """Whether a META ``since`` value is [a release, what it brought], as judgement/since.py reads it."""
    if not (isinstance(entry, (list, tuple)) and len(entry) == 2 and all(isinstance(v, str) for v in entry)):
        return False
    try:
        Version(entry[0])
    except InvalidVersion:
        return False
    return True


def _check_since(since: Any, path: Path) -> None:
    """META ``since``: framework -> [its first release with what the scenario uses, what that is]."""
    if since is None or (isinstance(since, dict) and since
                         and all(isinstance(k, str) and _since_entry(v) for k, v in since.items())):
        return
    raise UsageError(f"{path}: META since must map a framework to [its first release, what it brought], "
                     f'e.g. {{"torch": ["2.1", "expandable_segments"]}}; found {since!r}')


def load(path: str | Path) -> Scenario:
    """The scenario declared in ``path``; UsageError when the file is missing or malformed."""
    path = Path(path)
    if not path.is_file():
        raise UsageError(f"scenario file not found: {path} (give the path to a .py scenario file)")
    source = path.read_text(encoding="utf-8")
    try:
        tree = ast.parse(source, filename=str(path))
    except SyntaxError as exc:
        raise UsageError(f"{path}:{exc.lineno}: scenario is not valid Python ({exc.msg})") from exc
    meta = _meta(tree, path)
    unknown = set(meta) - KNOWN_KEYS
    if unknown:
        raise UsageError(f"{path}: unknown META keys {sorted(unknown)}; known: {sorted(KNOWN_KEYS)}")
    _check_since(meta.get("since"), path)
    name = path.stem
    if path.parent.name not in ("scenarios", "") and path.parent.parent.name == "scenarios":
        name = f"{path.parent.name}/{path.stem}"  # scenarios/<family>/<name>.py
    doc = ast.get_docstring(tree) or ""
    return Scenario(
        name=name,
        path=path.resolve(),
        families=tuple(meta.get("families", ("any",))),
        technique=str(meta.get("technique", "")),
        title=str(meta.get("title", doc.strip().splitlines()[0] if doc.strip() else name)),
        seed=meta.get("seed"),
        params=dict(meta.get("params", {})),
        env={str(k): str(v) for k, v in meta.get("env", {}).items()},
        timeout=float(meta["timeout"]) if "timeout" in meta else None,
        cleanup=tuple(meta["cleanup"]) if "cleanup" in meta else None,
        variants={str(k): dict(v) for k, v in meta.get("variants", {}).items()},
        cpu_params=dict(meta.get("cpu_params", {})),
        meter=meta.get("meter"),
        gpu_only=str(meta.get("gpu_only") or ""),
    )


def expand(item: Scenario) -> list[Scenario]:
    """The scenario and one more per declared variant (its params and env overridden)."""
    expanded = [item]
    for label, variant in item.variants.items():
        unknown = set(variant) - {"params", "env"}
        if unknown:
            raise UsageError(f"{item.path}: variant {label!r} may set 'params' and 'env', not {sorted(unknown)}")
        params, env = dict(variant.get("params", {})), {str(k): str(v) for k, v in variant.get("env", {}).items()}
        changes = ", ".join(f"{k}={v}" for k, v in {**params, **env}.items())
        expanded.append(replace(item, name=f"{item.name}@{label}", params={**item.params, **params},
                                env={**item.env, **env}, variants={}, technique=f"{item.technique}; variant {label}: {changes}"))
    return expanded
