"""`harness clean`: remove the containers this user's runs left (needed only after a SIGKILL); with
--all-users, every container this tool labelled on the engine, whoever started it."""
from __future__ import annotations

import argparse

from rich.console import Console

from harness.environments.docker_client import connect
from harness.measurement.backends.owned_containers import remove_labelled, user


def main(args: argparse.Namespace, err: Console, out: Console) -> int:
    removed = remove_labelled(connect(), everyone=args.all_users)
    whose = "by this tool for any user" if args.all_users else f"by this tool for {user()}"
    err.print(f"removed {removed} container(s) labelled {whose}")
    return 0
