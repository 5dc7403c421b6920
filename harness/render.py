"""Turning records into something to read: rich tables for the terminal. Prints nothing itself."""
from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text

from .verdicts import TOLERANCES

STYLES = {
    "released": "green", "returned": "green", "ok": "green",
    "cached": "yellow", "partial": "yellow", "no-signal": "dim", "unmeasured": "dim",
    "held": "red", "not-returned": "red", "error": "red", "crashed": "red", "timeout": "red",
    "unsupported": "magenta", "skipped": "dim",
}


def human_bytes(value: int | float | None) -> str:
    if value is None:
        return "n/a"
    sign = "-" if value < 0 else ""
    value = abs(float(value))
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            return f"{sign}{value:.0f} {unit}" if unit == "B" else f"{sign}{value:.2f} {unit}"
        value /= 1024
    return f"{sign}{value:.2f} TiB"


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
    t: dict[str, Any] = TOLERANCES
    return (f"tolerances: released when left <= max({human_bytes(t['abs_tol_bytes'])}, {t['rel_tol']:.0%} of growth); "
            f"no-signal when growth < {human_bytes(t['min_signal_bytes'])}")
