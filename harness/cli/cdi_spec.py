"""`harness cdi-spec`: write a CDI spec for this host's NVIDIA driver, so `--gpu-mode cdi` works without the toolkit."""
from __future__ import annotations

import argparse
import json

from rich.console import Console

from harness.common.commands import command
from harness.environments import cdi


def main(args: argparse.Namespace, err: Console, out: Console) -> int:
    spec = cdi.host_spec()
    if args.print:
        print(json.dumps(spec, indent=1))
        return 0
    path = cdi.write_spec(spec, args.output, force=args.force)
    edits = spec["containerEdits"]
    gpus = [d["name"] for d in spec["devices"] if d["name"] != "all"]
    err.print(f"[green]✓[/] {path}: {cdi.KIND}=all and ={','.join(gpus)}; {len(edits['deviceNodes'])} control nodes, "
              f"{len(edits['mounts'])} driver files mounted read-only")
    err.print("the engine reads it at the next container start (CDI on: Docker >= 25 with features.cdi, or 28+); "
              f"`{command('doctor')}` shows the mode a run will use")
    return 0
