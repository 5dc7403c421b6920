"""Turning records into something to read: rich tables for the terminal. Prints nothing itself."""
from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text

from harness.common.units import human_bytes
from harness.judgement.tolerances import TOLERANCES

STYLES = {
    "released": "green", "returned": "green", "ok": "green",
    "cached": "yellow", "partial": "yellow", "no-signal": "dim", "unmeasured": "dim",
    "held": "red", "not-returned": "red", "error": "red", "crashed": "red", "timeout": "red", "harness-error": "red",
    "unsupported": "magenta", "skipped": "dim", "interrupted": "dim", "unreadable": "red",
}


def styled(word: str | None) -> Text:
    word = word or "-"
    return Text(word, style=STYLES.get(word, ""))


def checkpoint_table(record: dict[str, Any]) -> Table:
    """One row per checkpoint: every meter, the framework's view, the verdict of cleanup steps."""
    scenario, env = record["scenario"], record["env"]
    table = Table(title=f"{scenario['name']} @ {env['name']} ({env.get('backend')})", title_justify="left")
    for column in ("checkpoint", "rss", "nvml device", "nvml process", "framework in_use / reserved", "verdict"):
        table.add_column(column, justify="left" if column in ("checkpoint", "verdict") else "right")
    judged = {step["label"]: step for step in (record.get("verdicts") or {}).get("steps", [])}
    for cp in record.get("checkpoints", []):
        r = cp["readings"]
        views = cp.get("view") or {}
        fw = "; ".join(f"{name}: {human_bytes(v.get('in_use'))} / {human_bytes(v.get('reserved'))}" for name, v in views.items())
        step = judged.get(cp["label"])
        label = cp["label"] + ("" if cp["settle"].get("settled", True) else " (unsettled)")
        table.add_row(label, human_bytes(r.get("rss")), human_bytes(r.get("nvml_device")),
                      human_bytes(r.get("nvml_process")), fw or "-",
                      styled(step["verdict"]) if step else Text(""))
    after = record.get("after_exit")
    if after:
        r = after["readings"]
        exit_verdict = (record.get("verdicts") or {}).get("exit") or {}
        table.add_row("after exit", human_bytes(r.get("rss")), human_bytes(r.get("nvml_device")),
                      human_bytes(r.get("nvml_process")), "-", styled(exit_verdict.get("verdict")))
    return table


def summary_line(record: dict[str, Any]) -> Text:
    status = record.get("status", "?")
    where = f"{record['scenario']['name']} @ {record['env']['name']}"
    text = Text.assemble(styled(status), f"  {where}  {record.get('duration_s', 0):.1f}s")
    error = record.get("error")
    if error:
        text.append(f"  {error.get('type')}: {str(error.get('message', '')).splitlines()[0] if error.get('message') else ''}")
    return text


def tolerance_line() -> str:
    return f"tolerances: {TOLERANCES['text']}"


GLYPHS = {
    "released": "✓", "returned": "✓", "ok": "✓", "cached": "◐", "partial": "◑", "held": "✗", "not-returned": "✗",
    "error": "!", "crashed": "!", "harness-error": "!", "timeout": "⏱", "unsupported": "–", "skipped": "–",
    "missing": "?", "interrupted": "?", "unreadable": "!", "no-signal": "·",
}


def _cell_word(cell: dict[str, Any]) -> tuple[str, str]:
    """The word that sums a cell up (its last judged step, or its status) and the text to show."""
    if cell.get("status") != "ok":
        return str(cell.get("status")), str(cell.get("status"))
    judged = [s for s in cell.get("steps", []) if s["verdict"] != "skipped"]
    if not judged:
        return (cell.get("exit") or "ok"), f"exit: {cell.get('exit')}" if cell.get("exit") else "ok"
    last = judged[-1]
    left = last.get("left")
    return last["verdict"], f"{last['verdict']}, {human_bytes(left)} left" if left is not None else last["verdict"]


def matrix_table(matrix: dict[str, Any]) -> Table:
    """Scenario rows x environment columns: a glyph, the final verdict and what is left, claim marks."""
    table = Table(title=f"GPU memory cleanup matrix ({matrix['run']})", title_justify="left")
    table.add_column("scenario")
    for env in matrix["environments"]:
        table.add_column(env)
    symbols: dict[tuple[str, str], str] = {}
    for claim in matrix.get("claims", []):
        for env, result in claim["results"].items():
            symbol = {"confirmed": "✓", "contradicted": "✗"}.get(result["outcome"], "")
            symbols[(claim["scenario"], env)] = symbols.get((claim["scenario"], env), "") + symbol
    marks = {key: f" [claims {value}]" for key, value in symbols.items() if value}
    changed = {(c["scenario"], c["env"]) for c in (matrix.get("compare") or {}).get("changed", [])}
    for name in matrix["scenarios"]:
        row: list[Text | str] = [name]
        for env in matrix["environments"]:
            cell = matrix["cells"].get(name, {}).get(env)
            if cell is None:
                row.append(Text("n/a", style="dim"))
                continue
            word, text = _cell_word(cell)
            delta = " Δ" if (name, env) in changed else ""
            row.append(Text(f"{GLYPHS.get(word, '')} {text}{marks.get((name, env), '')}{delta}", style=STYLES.get(word, "")))
        table.add_row(*row)
    return table


def matrix_summary(matrix: dict[str, Any]) -> str:
    statuses: dict[str, int] = {}
    for row in matrix["cells"].values():
        for cell in row.values():
            statuses[cell["status"]] = statuses.get(cell["status"], 0) + 1
    outcomes = {"confirmed": 0, "contradicted": 0, "untestable": 0}
    for claim in matrix.get("claims", []):
        for result in claim["results"].values():
            outcomes[result["outcome"]] += 1
    cells = ", ".join(f"{n} {s}" for s, n in sorted(statuses.items()))
    claims = ", ".join(f"{n} {o}" for o, n in outcomes.items())
    changed = matrix.get("compare")
    diff = f"; {len(changed['changed'])} changed since {changed['other']}" if changed else ""
    return f"{cells}; claims: {claims}{diff}"
