"""`harness doctor`: what this host (or every node of a Ray cluster) can run, one line per check with its fix."""
from __future__ import annotations

import argparse

from rich.console import Console

from harness.environments.doctor import Check, run_checks
from harness.measurement.nvml import Nvml


def main(args: argparse.Namespace, err: Console, out: Console) -> int:
    if args.cluster:
        return _cluster(args.cluster, out)
    nvml = Nvml.open()
    try:
        checks = run_checks(nvml)
    finally:
        nvml.close()
    for check in checks:
        out.print(_line(check), soft_wrap=True)
    return 0 if all(c.ok is not False for c in checks if c.name in ("Docker engine",)) else 1


def _line(check: Check) -> str:
    mark = {True: "[green]✓[/]", False: "[red]✕[/]", None: "[dim]•[/]"}[check.ok]
    return f"{mark} {check.name}: {check.detail}" + (f" [yellow]→ {check.fix}[/]" if check.fix else "")


def _cluster(address: str, out: Console) -> int:
    """One line per node (Docker, NVML, GPUs), then that node's failing checks with their fixes."""
    from harness.running import cluster

    offered = cluster.connect(address)
    out.print(f"Ray cluster at {address}: {offered['nodes']} node(s); a cell asks for "
              f"{cluster.task_resources(offered['resources'])}", soft_wrap=True)
    bad = 0
    for node, checks in sorted(cluster.node_checks(), key=lambda item: item[0]["ip"]):
        by_name = {c.name: c for c in checks}
        gpus = [c.detail for c in checks if c.name.startswith("GPU ")]
        docker, driver = by_name.get("Docker engine"), by_name.get("NVIDIA driver (NVML)")
        summary = (f"{node['hostname']} ({node['ip']}): Docker {'yes' if docker and docker.ok else 'no'}, "
                   f"NVML {'yes' if driver and driver.ok else 'no'}, {len(gpus)} GPU(s)"
                   + (f": {', '.join(gpus)}" if gpus else ""))
        out.print(summary, soft_wrap=True, markup=False)
        for check in checks:
            if check.ok is False:
                bad += check.name == "Docker engine"
                out.print("    " + _line(check), soft_wrap=True)
    return 1 if bad else 0
