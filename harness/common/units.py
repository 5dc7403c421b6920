"""Byte counts in words, shared by the verdicts and every renderer."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any


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


def host_memory(readings: Mapping[str, Any] | None) -> str:
    """A reading's host memory, with its child processes' own pages said apart where it has any
    ("1.02 GiB (314.00 MiB in child processes)"): a forked worker's memory is not the script's."""
    readings = readings or {}
    children = readings.get("rss_children")
    apart = f" ({human_bytes(children)} in child processes)" if children else ""
    return human_bytes(readings.get("rss")) + apart


def clip(text: str, limit: int) -> str:
    """``text`` whole when it fits, else cut at the last word boundary before ``limit`` with an
    ellipsis: a reason is never cut mid-word ("CUDA driver )")."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0].rstrip(" ,;:(")
    return (cut or text[:limit]) + "…"
