"""`harness run SCENARIO`: one scenario in one environment, its checkpoints shown as they are measured."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rich.console import Console

from harness import __version__
from harness.common.commands import command
from harness.common.errors import UsageError
from harness.common.units import human_bytes
from harness.measurement import scenario
from harness.measurement.nvml import Nvml
from harness.reporting import render
from harness.store import results


def main(args: argparse.Namespace, err: Console, out: Console) -> int:
    from harness.measurement.backends.process import ProcessBackend
    from harness.measurement.runner import CellOptions, run_cell

    spec = scenario.load(args.scenario)
    nvml = Nvml.open()
    backend: Any
    if args.backend == "docker":
        backend = _docker_backend(args, nvml)
        env_name = args.env
    else:
        backend = ProcessBackend(python=args.python)
        env_name = args.env_name or Path(backend.python).name
    if not nvml.available:
        err.print(f"[yellow]NVML unavailable:[/] {nvml.reason}; GPU readings are recorded as null, RSS only")
    results.check_writable(args.results)
    run_id = results.new_run_id()
    run_dir = args.results / run_id
    options = CellOptions(
        run_id=run_id, run_dir=run_dir, env_name=env_name,
        env_facts={}, params=dict(args.param), timeout=args.timeout, gpu_index=args.gpu, setenv=dict(args.setenv),
        cpu_only=not nvml.available or (args.backend == "docker" and not backend.gpus),
    )

    def progress(kind: str, data: dict[str, Any]) -> None:
        if kind == "checkpoint":
            r = data["readings"]
            err.print(f"  checkpoint {data['label']}: rss {human_bytes(r['rss'])}, "
                      f"gpu(process) {human_bytes(r['nvml_process'])}")

    try:
        record = run_cell(backend, spec, options, nvml, progress)
    finally:
        nvml.close()
    try:
        path = results.write_record(run_dir, record)
        results.write_manifest(run_dir, {"run_id": run_id, "tool_version": __version__, "argv": sys.argv[1:],
                                         "cells": [str(path.relative_to(run_dir))]})
    except OSError as exc:
        raise results.unwritable(run_dir, exc) from exc
    if args.json:
        print(json.dumps(record, indent=1, sort_keys=True, default=str))
    else:
        out.print(render.checkpoint_table(record))
        out.print(render.tolerance_line())
    err.print(render.summary_line(record))
    err.print(f"record: {path}")
    return 0 if record["status"] in ("ok", "unsupported") else 1


def _docker_backend(args: argparse.Namespace, nvml: Nvml) -> Any:
    from harness.environments import config, images
    from harness.environments.docker_client import connect
    from harness.measurement import gpu_access
    from harness.measurement.backends.docker import DockerBackend
    from harness.running.matrix import choose_variant

    if not args.env:
        raise UsageError("--backend docker needs --env NAME (an environment of matrix/environments.toml)")
    env = config.select(config.load_environments(), [args.env])[0]
    variant, _ = choose_variant(args.variant, nvml)
    client = connect()
    if env.kind == "build" and not images.image_current(client, env, variant):
        raise UsageError(f"image {env.image_tag(variant)} is missing or out of date: {command('images', '--env', env.name)}")
    access = gpu_access.for_run(client.info(), variant, nvml.available, args.gpu_mode)
    return DockerBackend(client=client, image=env.image_tag(variant), python=env.python, user=env.user, access=access)
