"""`harness scenarios`: the catalogue as a Markdown table (docs/scenarios.md's table is this output)."""
from __future__ import annotations

import argparse

from rich.console import Console

from harness.definitions import config
from harness.running import catalogue


def main(args: argparse.Namespace, err: Console, out: Console) -> int:
    envs = list(config.load_environments().values())
    lines = ["| scenario | technique | seed | envs |", "|---|---|---|---|"]
    for item in catalogue.discover():
        where = ", ".join(env.name for env in envs if catalogue.applies(env, item))
        lines.append(f"| `{item.name}` | {item.technique} | {item.seed or 'beyond the seeds'} | {where} |")
    out.print("\n".join(lines), markup=False, highlight=False, soft_wrap=True)
    return 0
