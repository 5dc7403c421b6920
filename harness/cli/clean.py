"""`harness clean`: remove every container this tool labelled (needed only after a SIGKILL)."""
from __future__ import annotations

import argparse

from rich.console import Console

from harness.environments.docker_client import connect
from harness.measurement.backends.owned_containers import remove_labelled


def main(args: argparse.Namespace, err: Console, out: Console) -> int:
    err.print(f"removed {remove_labelled(connect())} container(s) labelled by this tool")
    return 0
