"""matrix.md: the matrix as Markdown, a cell in a phrase, and the seeds' claims this run decides."""
from __future__ import annotations

import json

from harness import frameworks
from harness.common.meta import scenario_meta
from harness.common.units import clip, human_bytes
from harness.judgement import per_framework, rules
from harness.model.judged import CellSummary, ClaimResult, ClaimRow, Column, MatrixDoc
from harness.model.record import Status
from harness.reporting import glance


def cell_text(cell: CellSummary) -> str:
    """One Markdown cell: the status when it is not ok, else the judge's answer (answer.py), then
    each step's verdict and what is left."""
    status = cell.get("status")
    if status != Status.OK:
        return f"**{status}**" + (f" ({clip(error, 120)})" if (error := cell.get("error")) else "")
    parts = [f"**{glance.text(cell['glance'])}**"] if cell.get("glance") else []
    for step in cell["steps"]:
        judged = step.get("left") is not None and step["verdict"] != "skipped"
        left = f", {human_bytes(step['left'])} left" if judged else ""
        if judged and step.get("framework_left") is not None:
            left += f" (framework: {human_bytes(step['framework_left'])})"
        parts.append(f"{step['label']}: {'n/a' if step['verdict'] == 'skipped' else step['verdict']}{left}")
    parts += [f"loop ({loop['site']}): {loop['text']}"] if (loop := cell.get("loop")) else []
    if cell.get("exit"):
        parts.append(f"exit: {cell['exit']}")
    left_running = [k for k in cell.get("killed") or [] if k.get("role") != "script"]
    if left_running:
        pids = ", ".join(f"PID {k['pid']}" for k in left_running)
        parts.append(f"left running, killed by the harness: {pids}")
    if cell.get("runtime_cost"):
        parts.append(f"runtime: {human_bytes(cell['runtime_cost'])}")
    elif cell.get("blind_labels"):
        parts.append("pool mapped at first touch")
    return "<br>".join(parts) or "ok (no cleanup step)"


def _claim_mark(result: ClaimResult) -> str:
    symbol = {"confirmed": "✅ confirmed", "contradicted": "❌ contradicted", "not reproduced": "○ not reproduced",
              "untestable": "➖ untestable"}
    return f"{symbol[result['outcome']]} ({result['why']})"


def _said_with(name: str, version: str, releases: dict[str, str]) -> bool:
    """An import recorded with its framework at the framework's own release (jaxlib with jax): said once."""
    return any(name in f.reported_with and releases.get(f.name) == version for f in frameworks.all_frameworks())


def column_header(env: str, column: Column) -> str:
    """An environment's column: its name, the releases it ran and the hardware ('torch<br>torch 2.11.0
    · H200'), so a pasted table says what each column measured."""
    releases = column.get("frameworks") or {}
    shown = [f"{name} {version}" for name, version in releases.items() if not _said_with(name, version, releases)]
    # matrix.json written before "ran" was kept: its columns ran
    elsewhere = "" if not column else "CPU" if column.get("ran", True) else "not built"
    hardware = str(column.get("gpu") or "").replace("NVIDIA ", "") or elsewhere
    detail = " · ".join(part for part in (", ".join(shown), hardware) if part)
    return f"{env}<br>{detail}" if detail else env


def claims_to_show(matrix: MatrixDoc) -> tuple[list[ClaimRow], int]:
    """The claims this run speaks to, and how many it cannot decide for want of a GPU (0 with one):
    without a GPU those are said once, not listed as a table of "untestable"."""
    spoken = [c for c in matrix.get("claims", []) if c["results"]]
    if matrix.get("machine") != glance.NO_GPU:
        return spoken, 0
    decided = [c for c in spoken if any(r["outcome"] != "untestable" for r in c["results"].values())]
    return decided, len(spoken) - len(decided)


def not_shown(matrix: MatrixDoc) -> list[str]:
    """Why a scenario's cells read "not shown without a GPU": once per scenario, under the table."""
    reasons = {name: reason for name, row in matrix["cells"].items() for cell in row.values()
               if (reason := cell.get("gpu_only"))}
    if not reasons:
        return []
    return ["", "Not shown without a GPU (what these scenarios show exists only on a GPU; their steps measured host "
            "memory):", *(f"- `{name}`: {reason}" for name, reason in reasons.items())]


def variants_said(matrix: MatrixDoc) -> list[str]:
    """What each ``name@variant`` row changes: the same scenario run again with other parameters (its META's)."""
    said = []
    for name in (n for n in matrix["scenarios"] if "@" in n):
        base, variant = name.split("@", 1)
        declared = (scenario_meta(base).get("variants") or {}).get(variant) or {}
        setting = ", ".join([*(f"{key}={json.dumps(value)}" for key, value in (declared.get("params") or {}).items()),
                             *(f"{key}={value}" for key, value in (declared.get("env") or {}).items())]) or "its own settings"
        said.append(f"- `{name}`: `{base}` run with {setting}")
    return ["", "A row named `scenario@variant` is the scenario run again with other parameters:", *said] if said else []


def to_markdown(matrix: MatrixDoc) -> str:
    envs = matrix["environments"]
    lines = [f"## {glance.title(matrix)}", ""]
    if matrix.get("note"):
        lines += [matrix["note"], ""]
    lines += [f"Measured on: {matrix.get('machine') or 'unknown machine'}.", ""]
    lines += [f"- {line}" for line in per_framework.sentences(matrix, host_only=matrix.get("machine") == glance.NO_GPU)]
    lines += [""]
    lines.append("| scenario | " + " | ".join(column_header(e, (matrix.get("columns") or {}).get(e) or {}) for e in envs) + " |")
    lines.append("|---|" + "---|" * len(envs))
    for name in matrix["scenarios"]:
        row = matrix["cells"][name]
        lines.append(f"| `{name}` | " + " | ".join(cell_text(row[e]) if e in row else "n/a" for e in envs) + " |")
    lines += not_shown(matrix) + variants_said(matrix)
    lines += ["", "### Claims from the articles the scenarios come from (their seeds)", ""]
    shown, need_gpu = claims_to_show(matrix)
    if need_gpu:
        lines += [f"No NVIDIA GPU in this run: it measured host memory (RSS) only, so the {need_gpu} claims about GPU "
                  "memory cannot be decided here (run the matrix on a machine with an NVIDIA GPU).", ""]
    if shown:
        lines += ["| claim | seed | " + " | ".join(envs) + " |", "|---|---|" + "---|" * len(envs)]
    for claim in shown:
        results = claim["results"]
        marks = [_claim_mark(results[e]) if e in results else "" for e in envs]
        seed = claim["seed"][:3] if claim["seed"][:3].isdigit() else claim["seed"]
        lines.append(f"| {claim['says']} (`{claim['scenario']}`) | `{seed}` | " + " | ".join(marks) + " |")
    if matrix.get("compare"):
        diff = matrix["compare"]
        lines += ["", f"### Changed since {diff['other']}", ""]
        lines += [f"Compared {p['env']} with {p['other_env']} ({p['by']})." for p in diff.get("pairs", [])] + [""]
        changes = [f"- `{c['scenario']}` @ {c['env']}"
                   + (f" (vs {c['other_env']})" if c.get("other_env", c["env"]) != c["env"] else "")
                   + f": {c['before']} -> **{c['after']}**" for c in diff["changed"]]
        lines += changes or ["- nothing"]
    text = matrix.get("tolerances_text") or matrix["tolerances"]["text"]
    lines += ["", f"Tolerances: {text}. n/a: the scenario does not apply to that env. "
              f"J{rules.judged_by(matrix.get('rules_version', '?'))[1:]}."]
    return "\n".join(lines) + "\n"
