"""`harness run SCENARIO`: one scenario in one environment, its checkpoints shown as they are measured.

The same orchestration as every command (running/matrix.py): one planned cell, in an interpreter
of this host (the process backend) or in an environment's image (docker).
"""
from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rich.console import Console

from harness.cli.shared import matrix_options
from harness.common.commands import command
from harness.common.errors import UsageError
from harness.common.units import human_bytes
from harness.definitions import config
from harness.environments import images
from harness.judgement.tolerances import tolerances_text
from harness.measurement import scenario
from harness.measurement.nvml import Nvml
from harness.model.record import Status
from harness.reporting import render
from harness.running.matrix import choose_variant, run_matrix
from harness.store import results


def main(args: argparse.Namespace, err: Console, out: Console) -> int:
    spec = scenario.load(args.scenario)
    nvml = Nvml.open()
    try:
        if args.backend == "docker":
            _refuse_missing_image(args, nvml)
            where: dict[str, Any] = {"envs": [args.env]}
        else:
            name = args.env_name or Path(args.python).name
            where = {"extra_envs": [config.EnvDef(name=name, family=spec.families, interpreter=args.python)]}
        options = matrix_options(args, items=[spec], gpu_indices=[args.gpu] if nvml.available else None, **where)
        run = run_matrix(options, nvml, _progress(err, nvml))
    finally:
        nvml.close()
    record = run.records[0]
    if args.json:
        print(json.dumps(record, indent=1, sort_keys=True, default=str))
    else:
        out.print(render.checkpoint_table(record))
        host_only = not (record.get("host") or {}).get("nvml_available")
        out.print(render.tolerance_line(tolerances_text(host_only=host_only)))  # host memory's rules where no GPU was read
    err.print(render.summary_line(record))
    err.print(f"record: {results.cell_path(run.run_dir, record['env']['name'], record['scenario']['name'])}")
    return 0 if record["status"] in (Status.OK, Status.UNSUPPORTED) else 1


def _progress(err: Console, nvml: Nvml) -> Any:
    def emit(kind: str, data: Mapping[str, Any]) -> None:
        if kind == "plan" and not nvml.available:  # once the environment is ready: bad input is said alone
            err.print(f"[yellow]NVML unavailable:[/] {nvml.reason}; GPU readings are recorded as null, RSS only")
        elif kind == "checkpoint":
            r = data["readings"]
            err.print(f"  checkpoint {data['label']}: rss {human_bytes(r['rss'])}, "
                      f"gpu(process) {human_bytes(r['nvml_process'])}")
        elif kind in ("skipped", "failed"):
            err.print(f"{kind}: " + ", ".join(str(v) for v in data.values()), markup=False)
    return emit


def _refuse_missing_image(args: argparse.Namespace, nvml: Nvml) -> None:
    """`run` measures an image as it is: one missing or out of date is said, never built here."""
    from harness.environments.docker_client import connect

    if not args.env:
        raise UsageError("--backend docker needs --env NAME (an environment of matrix/environments.toml)")
    env = config.select(config.load_environments(), [args.env])[0]
    variant, _ = choose_variant(args.variant, nvml)
    if env.kind == "build" and not images.image_current(connect(), env, variant):
        raise UsageError(f"image {env.image_tag(variant)} is missing or out of date: {command('images', '--env', env.name)}")
