"""Checkpoints inside loops: a site's readings by iteration, and how fast they grow.

The agent labels a checkpoint that runs more than once ``file:line: source#n`` (iteration n)
and measures iterations 1-10, then every 10th up to 100, every 100th up to 1,000, and so on;
the record's ``loops`` says how many iterations each site really ran.
"""
from __future__ import annotations

from typing import Any

Points = list[tuple[int, int]]


def site_of(label: str) -> tuple[str, int | None]:
    """(site, iteration) of a label; iteration None for a checkpoint outside a loop."""
    site, sep, n = label.rpartition("#")
    return (site, int(n)) if sep and n.isdigit() else (label, None)


def groups(checkpoints: list[dict[str, Any]], meter: str) -> dict[str, Points]:
    """Looped sites with two or more measured iterations: [(iteration, reading), ...]."""
    found: dict[str, Points] = {}
    for cp in checkpoints:
        site, n = site_of(cp["label"])
        value = cp["readings"].get(meter)
        if n is not None and value is not None and not cp.get("skipped"):
            found.setdefault(site, []).append((n, int(value)))
    return {site: points for site, points in found.items() if len(points) >= 2}


def slope(points: Points) -> float:
    """Least-squares growth per iteration (bytes): robust to one noisy reading."""
    n = len(points)
    mean_x = sum(x for x, _ in points) / n
    mean_y = sum(y for _, y in points) / n
    var = sum((x - mean_x) ** 2 for x, _ in points)
    return sum((x - mean_x) * (y - mean_y) for x, y in points) / var if var else 0.0
