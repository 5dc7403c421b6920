"""Byte counts in words, shared by the verdicts and every renderer."""
from __future__ import annotations


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


def clip(text: str, limit: int) -> str:
    """``text`` whole when it fits, else cut at the last word boundary before ``limit`` with an
    ellipsis: a reason is never cut mid-word ("CUDA driver )")."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0].rstrip(" ,;:(")
    return (cut or text[:limit]) + "…"
