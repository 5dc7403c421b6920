"""`harness images`: build the environment images that are missing or out of date (layer-cached)."""
from __future__ import annotations

import argparse
from dataclasses import replace

from rich.console import Console

from harness.cli.shared import build_options
from harness.common.errors import UsageError
from harness.common.units import human_bytes
from harness.definitions import config
from harness.environments import images
from harness.environments.docker_client import connect
from harness.measurement.nvml import Nvml
from harness.running.matrix import choose_variant


def main(args: argparse.Namespace, err: Console, out: Console) -> int:
    envs = config.select(config.load_environments(), args.env)
    nvml = Nvml.open()
    variant, why = choose_variant(args.variant, nvml)
    nvml.close()
    err.print(f"variant: [bold]{variant}[/] ({why})")
    client, options = connect(), build_options(args)
    if args.push and not args.registry:
        raise UsageError("--push needs --registry HOST:PORT (where the cluster's nodes pull from)")
    if args.check:
        options = replace(options, check_only=True)
    for env in envs:
        env.variant(variant)
        tag = env.image_tag(variant)
        if args.check:
            with err.status(f"checking {tag}") as status:
                images.build(client, env, variant, options, lambda text: status.update(text[:100]))
            err.print(f"[green]✓[/] {tag}: the Dockerfile builds on {env.variant(variant).base} and its pins resolve")
            continue
        if not args.force and images.image_current(client, env, variant, options):
            err.print(f"[green]✓[/] {tag} is current ({human_bytes(images.size_of(client, tag))})")
        else:
            with err.status(f"building {tag}") as status:
                image_id = images.build(client, env, variant, options, lambda text: status.update(text[:100]))
            err.print(f"[green]✓[/] {tag} built ({image_id[:19]}, {human_bytes(images.size_of(client, tag))})")
        if args.push:
            err.print(f"[green]✓[/] pushed {images.push(client, env, variant, args.registry)}")
    return 0
