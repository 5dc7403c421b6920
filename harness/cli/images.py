"""`harness images`: build the environment images that are missing or out of date (layer-cached)."""
from __future__ import annotations

import argparse

from rich.console import Console

from harness.cli.shared import build_options
from harness.common.errors import UsageError
from harness.environments import config, images
from harness.environments.docker_client import connect
from harness.measurement.nvml import Nvml
from harness.running.matrix import choose_variant

HELP = "build the environment images (layer-cached)"


def main(args: argparse.Namespace, err: Console, out: Console) -> int:
    envs = config.select(config.load_environments(), args.env)
    nvml = Nvml.open()
    variant, why = choose_variant(args.variant, nvml)
    nvml.close()
    err.print(f"variant: [bold]{variant}[/] ({why})")
    client, options = connect(), build_options(args)
    if args.push and not args.registry:
        raise UsageError("--push needs --registry HOST:PORT (where the cluster's nodes pull from)")
    for env in envs:
        env.variant(variant)
        if not args.force and images.image_current(client, env, variant):
            err.print(f"[green]✓[/] {env.image_tag(variant)} is current")
        else:
            with err.status(f"building {env.image_tag(variant)}") as status:
                image_id = images.build(client, env, variant, options, lambda text: status.update(text[:100]))
            err.print(f"[green]✓[/] {env.image_tag(variant)} built ({image_id[:19]})")
        if args.push:
            err.print(f"[green]✓[/] pushed {images.push(client, env, variant, args.registry)}")
    return 0
