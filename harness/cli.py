"""The command line. The only place that prints, and the only place that catches HarnessError.

Progress and logs go to stderr (rich; plain when not a terminal or NO_COLOR is set); results
(tables, or JSON with --json) go to stdout.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any, NoReturn

from rich.console import Console

from harness import __version__
from harness.common.errors import HarnessError, UsageError
from harness.common.units import human_bytes
from harness.environments import pkgindex
from harness.measurement.nvml import Nvml
from harness.reporting import render, results
from harness.running import bisection, scenario


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line naming the cause and where to look."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


SETENV_HELP = "an environment variable NAME=VALUE for every cell (repeatable), on every backend; recorded"
WITH_HELP = ("an environment made from a pin, PKG==VER (repeatable: one environment each; join pins with commas "
             "for one environment): Python, companion pins and base are chosen from the package index")


def _param(text: str) -> tuple[str, Any]:
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    key, raw = text.split("=", 1)
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw
    return key, value


def _setenv(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key or not key.replace("_", "a").isalnum() or key[0].isdigit():
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE with a variable name, got {text!r}")
    return key, value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from exc
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {value:g}")
    return value


def _indices(text: str) -> list[int]:
    try:
        return [int(part) for part in text.split(",") if part.strip()]
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"expected GPU indices like 0,1, got {text!r}") from exc


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="harness", description="Does this cleanup really give GPU memory back?")
    parser.add_argument("--version", action="version", version=f"harness {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)

    run = sub.add_parser("run", help="run one scenario in one environment and show its checkpoints")
    run.add_argument("scenario", help="path to a scenario file")
    run.add_argument("--backend", choices=["process", "docker"], default="process")
    run.add_argument("--python", default=sys.executable, help="interpreter for the process backend")
    run.add_argument("--env-name", default=None, help="name for the environment in the record")
    run.add_argument("--timeout", type=_seconds, default=None, help="seconds before the cell is killed")
    run.add_argument("--param", type=_param, action="append", default=[], help="scenario parameter KEY=VALUE")
    run.add_argument("--setenv", type=_setenv, action="append", default=[], help=SETENV_HELP)
    run.add_argument("--gpu", type=int, default=0, help="GPU index to measure (NVML order)")
    run.add_argument("--results", type=Path, default=Path("results"), help="results folder")
    run.add_argument("--json", action="store_true", help="print the record as JSON on stdout")
    run.add_argument("--env", default=None, help="docker backend: the environment (matrix/environments.toml)")
    run.add_argument("--variant", choices=["cpu", "gpu"], default=None, help="docker backend: image variant")
    run.add_argument("--gpu-mode", choices=["gpus", "cdi", "devices", "none"], default=None,
                     help="docker backend: how the container gets the GPU (default: chosen from the host)")

    matrix = sub.add_parser("matrix", help="every scenario in every applicable environment, in containers")
    matrix.add_argument("--env", action="append", default=None, help="only this environment (repeatable)")
    matrix.add_argument("--scenario", action="append", default=None, help="only scenarios matching this glob (repeatable)")
    matrix.add_argument("--variant", choices=["cpu", "gpu"], default=None, help="default: gpu with an NVIDIA GPU, else cpu")
    matrix.add_argument("--timeout", type=_seconds, default=None, help="seconds per cell before it is killed")
    matrix.add_argument("--param", type=_param, action="append", default=[], help="scenario parameter KEY=VALUE, for all")
    matrix.add_argument("--setenv", type=_setenv, action="append", default=[], help=SETENV_HELP)
    matrix.add_argument("--results", type=Path, default=Path("results"), help="results folder")
    matrix.add_argument("--jobs", type=int, default=None, help="cells at once (cpu variant; default 2)")
    matrix.add_argument("--json", action="store_true", help="print matrix.json on stdout")
    matrix.add_argument("--gpu-mode", choices=["gpus", "cdi", "devices", "none"], default=None,
                        help="how containers get the GPU (default: chosen from the host; `nox -s doctor` says which)")
    matrix.add_argument("--backend", choices=["auto", "docker", "venv", "process"], default="auto",
                        help="docker when an engine answers, else virtualenvs (auto); process: each env's Python as found")
    matrix.add_argument("--venv-dir", type=Path, default=Path(".matrix-venvs"), help="where the venv backend keeps virtualenvs")
    matrix.add_argument("--gpus", type=_indices, default=None, help="GPU indices to use, e.g. 0,1 (default: all)")
    matrix.add_argument("--image", action="append", default=[], help="an existing image as an environment (repeatable)")
    matrix.add_argument("--interpreter", action="append", default=[], help="a local Python as an environment (repeatable)")
    matrix.add_argument("--family", action="append", default=[], help="API families of --image/--interpreter environments")
    _with_options(matrix)
    matrix.add_argument("--cluster", default=None, metavar="ray|ray://HOST:PORT", help=CLUSTER_HELP)
    matrix.add_argument("--resume", type=Path, default=None, metavar="RUN_DIR",
                        help="finish an interrupted run: its planned cells that have no record yet (other filters ignored)")
    _build_options(matrix)

    images_cmd = sub.add_parser("images", help="build the environment images (layer-cached)")
    images_cmd.add_argument("--env", action="append", default=None, help="only this environment (repeatable)")
    images_cmd.add_argument("--variant", choices=["cpu", "gpu"], default=None, help="default: gpu with an NVIDIA GPU, else cpu")
    images_cmd.add_argument("--force", action="store_true", help="rebuild even when current")
    images_cmd.add_argument("--push", action="store_true", help="push every image to --registry afterwards")
    _build_options(images_cmd)

    repro = sub.add_parser("repro", help="a bug report's script, unmodified, in each environment, measured")
    repro.add_argument("script", type=Path, help="the script from the bug report")
    repro.add_argument("--env", action="append", default=None, help="only this environment (repeatable; default: all that fit)")
    repro.add_argument("--image", action="append", default=[], help="an existing image as an environment (repeatable)")
    repro.add_argument("--interpreter", action="append", default=[], help="a local Python as an environment (repeatable)")
    repro.add_argument("--backend", choices=["auto", "docker", "venv", "process"], default="auto")
    repro.add_argument("--variant", choices=["cpu", "gpu"], default=None, help="default: gpu with an NVIDIA GPU, else cpu")
    repro.add_argument("--gpu-mode", choices=["gpus", "cdi", "devices", "none"], default=None)
    repro.add_argument("--timeout", type=_seconds, default=None, help="seconds per environment before the script is killed")
    repro.add_argument("--setenv", type=_setenv, action="append", default=[], help=SETENV_HELP)
    repro.add_argument("--results", type=Path, default=Path("results"), help="results folder")
    repro.add_argument("--venv-dir", type=Path, default=Path(".matrix-venvs"), help="where the venv backend keeps virtualenvs")
    _with_options(repro)
    repro.add_argument("--cluster", default=None, metavar="ray|ray://HOST:PORT", help=CLUSTER_HELP)
    _build_options(repro)

    bisect = sub.add_parser("bisect", help="the first release where a script's memory behaviour turns, in few runs")
    bisect.add_argument("script", type=Path, help="the script (a bug report's, unmodified)")
    bisect.add_argument("--package", required=True, help="the distribution whose releases are searched (tensorflow, jax, ...)")
    bisect.add_argument("--good", required=True, help="a release where the behaviour is fine")
    bisect.add_argument("--bad", required=True, help="a release where it is not")
    bisect.add_argument("--criterion", choices=list(bisection.CRITERIA), default="left",
                        help="; ".join(f"{k}: {v}" for k, v in bisection.CRITERIA.items()) + " (default: left)")
    bisect.add_argument("--threshold", type=float, default=None, metavar="MIB",
                        help="bad when the value exceeds the good release's by more than this many MiB (default: "
                        + ", ".join(f"{k} {v:g}" for k, v in bisection.DEFAULT_THRESHOLD_MIB.items()) + ")")
    bisect.add_argument("--label", default=None, help="--criterion label: part of the checkpoint label to read")
    bisect.add_argument("--pre", action="store_true", help="include pre-releases and dev releases")
    bisect.add_argument("--backend", choices=["auto", "docker", "venv"], default="auto")
    bisect.add_argument("--variant", choices=["cpu", "gpu"], default=None, help="default: gpu with an NVIDIA GPU, else cpu")
    bisect.add_argument("--gpu-mode", choices=["gpus", "cdi", "devices", "none"], default=None)
    bisect.add_argument("--timeout", type=_seconds, default=None, help="seconds per release before the script is killed")
    bisect.add_argument("--setenv", type=_setenv, action="append", default=[], help=SETENV_HELP)
    bisect.add_argument("--results", type=Path, default=Path("results"), help="results folder")
    bisect.add_argument("--venv-dir", type=Path, default=Path(".matrix-venvs"), help="where the venv backend keeps virtualenvs")
    bisect.add_argument("--index-url", default=pkgindex.DEFAULT_INDEX, help="the package index releases are listed from")
    bisect.add_argument("--cluster", default=None, metavar="ray|ray://HOST:PORT", help=CLUSTER_HELP)
    _build_options(bisect)

    report = sub.add_parser("report", help="re-render a saved run: terminal table, matrix.md, matrix.json, report.html")
    report.add_argument("run_dir", type=Path, help="a run folder (results/<run-id>)")
    report.add_argument("--compare", type=Path, default=None, help="another run folder: highlight verdicts that changed")
    report.add_argument("--json", action="store_true", help="print matrix.json on stdout")

    sub.add_parser("scenarios", help="the catalogue as a Markdown table: scenario, technique, seed, envs")
    doctor = sub.add_parser("doctor", help="what this host can run: engine, driver, container GPU support, images")
    doctor.add_argument("--cluster", default=None, metavar="ray|ray://HOST:PORT", help="check every node of a Ray cluster")
    sub.add_parser("clean", help="remove every container this tool labelled")
    return parser


CLUSTER_HELP = ("run every cell as a Ray task: `ray` (RAY_ADDRESS, else a local Ray instance) or ray://HOST:10001; "
                "needs pip install 'gpu-cleanup-matrix[ray]'")


def _with_options(parser: argparse.ArgumentParser) -> None:
    from harness.environments.pkgindex import DEFAULT_INDEX

    parser.add_argument("--with", dest="with_pins", action="append", default=[], metavar="PKG==VER", help=WITH_HELP)
    parser.add_argument("--index-url", default=DEFAULT_INDEX, help="the package index --with looks releases up in "
                        "(its JSON simple API, PEP 691)")


def _build_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--wheelhouse", type=Path, default=None, help="a folder of wheels handed to every build")
    parser.add_argument("--offline", action="store_true", help="air-gapped builds: the wheelhouse only, no index")
    parser.add_argument("--pull", action="store_true", help="pull newer base images while building")
    parser.add_argument("--registry", default=None, metavar="REF",
                        help="pull each environment's image from this registry (host:port[/prefix]) before building it; "
                        "`images --push` puts them there (for the nodes of a cluster)")


def _console(stderr: bool) -> Console:
    return Console(stderr=stderr, no_color="NO_COLOR" in os.environ, highlight=False)


def cmd_run(args: argparse.Namespace, err: Console, out: Console) -> int:
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
    path = results.write_record(run_dir, record)
    results.write_manifest(run_dir, {"run_id": run_id, "tool_version": __version__, "argv": sys.argv[1:],
                                     "cells": [str(path.relative_to(run_dir))]})
    if args.json:
        print(json.dumps(record, indent=1, sort_keys=True, default=str))
    else:
        out.print(render.checkpoint_table(record))
        out.print(render.tolerance_line())
    err.print(render.summary_line(record))
    err.print(f"record: {path}")
    return 0 if record["status"] in ("ok", "unsupported") else 1


def _docker_backend(args: argparse.Namespace, nvml: Nvml) -> Any:
    from harness.environments import config, gpu_access, images
    from harness.environments.docker_client import connect
    from harness.measurement.backends.docker import DockerBackend
    from harness.running.matrix import choose_variant

    if not args.env:
        raise UsageError("--backend docker needs --env NAME (an environment of matrix/environments.toml)")
    env = config.select(config.load_environments(), [args.env])[0]
    variant, _ = choose_variant(args.variant, nvml)
    client = connect()
    if env.kind == "build" and not images.image_current(client, env, variant):
        raise UsageError(f"image {env.image_tag(variant)} is missing or out of date: nox -s images -- --env {env.name}")
    access = gpu_access.for_run(client.info(), variant, nvml.available, args.gpu_mode)
    return DockerBackend(client=client, image=env.image_tag(variant), python=env.python, user=env.user, access=access)


def _adhoc_envs(args: argparse.Namespace, families: list[str]) -> list[Any]:
    """The environments named on the command line (--image, --interpreter)."""
    from harness.environments import config

    return ([config.adhoc_image(ref, families) for ref in args.image]
            + [config.adhoc_interpreter(py, families) for py in args.interpreter])


def _build_opts(args: argparse.Namespace) -> Any:
    from harness.environments.images import BuildOptions

    if args.wheelhouse is not None and not args.wheelhouse.is_dir():
        raise UsageError(f"--wheelhouse {args.wheelhouse} is not a folder (give a folder of .whl files)")
    if args.offline and args.wheelhouse is None:
        raise UsageError("--offline builds need --wheelhouse DIR: with no index, pip can only install from there")
    return BuildOptions(wheelhouse=args.wheelhouse, offline=args.offline, pull=args.pull, registry=args.registry)


def cmd_matrix(args: argparse.Namespace, err: Console, out: Console) -> int:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from harness.running.matrix import MatrixOptions, run_matrix


    if args.interpreter and not args.family:
        raise UsageError("--interpreter needs --family (torch, tf1, tf2, jax, cupy): which scenarios apply")
    extra = _adhoc_envs(args, args.family)
    options = MatrixOptions(envs=args.env, scenarios=args.scenario, variant=args.variant, results_root=args.results,
                            timeout=args.timeout, params=dict(args.param), build=_build_opts(args), jobs=args.jobs,
                            gpu_mode=args.gpu_mode, gpu_indices=args.gpus, extra_envs=extra, backend=args.backend,
                            venv_root=args.venv_dir, setenv=dict(args.setenv), with_pins=args.with_pins,
                            index_url=args.index_url, cluster=args.cluster)
    if args.resume is not None:
        from harness.running.matrix import resume_options

        options = resume_options(args.resume, options)
    nvml = Nvml.open()
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        console=err, transient=False)
    task = progress.add_task("cells", total=None)

    def emit(kind: str, data: dict[str, Any]) -> None:
        if kind == "plan":
            err.print(f"variant: [bold]{data['variant']}[/] ({data['reason']})")
            err.print(f"GPU access for containers: [bold]{data['gpu_mode']}[/] ({data['gpu_note']})")
            err.print(f"{data['cells']} cells in {', '.join(data['envs'])} on {', '.join(data['workers'])} -> {data['run_dir']}")
            progress.update(task, total=data["cells"])
            progress.start()  # only once there is something to show: an early error prints alone
        elif kind == "build":
            err.print(f"building {data['tag']} ...")
        elif kind == "backend":
            err.print(f"backend: [bold]{data['backend']}[/] ({data['reason']})")
        elif kind == "skipped":
            err.print(f"[yellow]skipped[/] {data['env']}: {data['reason']}")
        elif kind == "venv":
            err.print(f"{data['env']}: virtualenv {'reused' if data['reused'] else 'made'} ({data['python']})")
        elif kind == "detected":
            err.print(f"{data['env']}: API families detected inside the image: {', '.join(data['families'])}")
        elif kind == "build-log":
            progress.console.print(f"  {data['text']}", markup=False, highlight=False)
        elif kind == "cell-start":
            progress.update(task, description=f"{data['env']} / {data['scenario']}")
        elif kind == "cell-done":
            progress.console.print(render.summary_line(data))
            progress.advance(task)

    try:
        run = run_matrix(options, nvml, emit)
    finally:
        progress.stop()
        nvml.close()
    _show_matrix(run.matrix, args.json, out)
    err.print(render.matrix_summary(run.matrix))
    bad = [r for r in run.records if r["status"] not in ("ok", "unsupported")]
    where = run.run_dir / "matrix.md"
    err.print(f"{len(run.records)} cells, {len(bad)} not ok, {run.wall_s:.1f}s; written: {where}, matrix.json, report.html")
    return _nothing_ran(run.records, err)


RAN = {"ok", "error", "unsupported", "timeout", "crashed"}  # the cell's own code ran, whatever it came to


def _nothing_ran(records: list[dict[str, Any]], err: Console) -> int:
    """Exit 3 when no environment ran what was asked (every cell skipped or failed by the harness)."""
    if any(r["status"] in RAN for r in records):
        return 0
    reasons = sorted({f"{r['status']}: {str((r.get('error') or {}).get('message', '')).splitlines()[0][:120]}"
                      for r in records} or {"no cell was planned"})
    err.print(f"[red]nothing ran[/]: {'; '.join(reasons)}")
    return 3


def cmd_images(args: argparse.Namespace, err: Console) -> int:
    from harness.environments import config, images
    from harness.environments.docker_client import connect
    from harness.running.matrix import choose_variant

    envs = config.select(config.load_environments(), args.env)
    nvml = Nvml.open()
    variant, why = choose_variant(args.variant, nvml)
    nvml.close()
    err.print(f"variant: [bold]{variant}[/] ({why})")
    client, options = connect(), _build_opts(args)
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


def cmd_repro(args: argparse.Namespace, err: Console, out: Console) -> int:
    from harness.environments import config
    from harness.running import catalogue, repro
    from harness.running.matrix import MatrixOptions, run_matrix

    item = repro.script_scenario(args.script, args.timeout, plain=bool(args.with_pins))
    extra = _adhoc_envs(args, list(item.families))
    names = args.env
    if names is None and not extra and not args.with_pins:
        names = [env.name for env in config.select(config.load_environments(), None) if catalogue.applies(env, item)]
    options = MatrixOptions(envs=names, variant=args.variant, results_root=args.results, timeout=args.timeout,
                            build=_build_opts(args), gpu_mode=args.gpu_mode, extra_envs=extra, backend=args.backend,
                            venv_root=args.venv_dir, items=[item], setenv=dict(args.setenv), with_pins=args.with_pins,
                            index_url=args.index_url, cluster=args.cluster)
    nvml = Nvml.open()
    try:
        run = run_matrix(options, nvml, _plain_events(err))
    finally:
        nvml.close()
    records = sorted(run.records, key=lambda r: run.matrix["environments"].index(r["env"]["name"]))
    for record in records:
        out.print(render.checkpoint_table(record))
    block = repro.markdown(records, args.script)
    (run.run_dir / "repro.md").write_text(block, encoding="utf-8")
    print(block, end="")
    err.print(f"written: {run.run_dir / 'repro.md'}, and report.html (a timeline per environment)")
    return _nothing_ran(records, err)


def cmd_bisect(args: argparse.Namespace, err: Console, out: Console) -> int:
    from harness.running.bisect_run import BisectOptions, run_bisect
    from harness.running.matrix import MatrixOptions

    criterion = bisection.Criterion.make(args.criterion, args.threshold, args.label)
    matrix = MatrixOptions(variant=args.variant, results_root=args.results, timeout=args.timeout, build=_build_opts(args),
                           gpu_mode=args.gpu_mode, backend=args.backend, venv_root=args.venv_dir, setenv=dict(args.setenv),
                           index_url=args.index_url, cluster=args.cluster)
    options = BisectOptions(script=args.script, package=args.package, good=args.good, bad=args.bad, criterion=criterion,
                            pre=args.pre, matrix=matrix)
    err.print(f"criterion: {criterion.describe()}", markup=False)
    events = _plain_events(err)

    def emit(kind: str, data: dict[str, Any]) -> None:
        if kind == "releases":
            err.print(f"{len(data['versions'])} releases of {data['package']}: {', '.join(data['versions'])}", markup=False)
        elif kind == "version":
            err.print(f"[bold]{args.package} {data['version']}[/]")
        else:
            events(kind, data)

    nvml = Nvml.open()
    try:
        run = run_bisect(options, nvml, emit)
    finally:
        nvml.close()
    text = (run.run_dir / "bisect.md").read_text(encoding="utf-8")
    print(text, end="")
    err.print(f"written: {run.run_dir / 'bisect.md'}, bisect.json, matrix.md, report.html")
    if run.outcome.first_bad is not None:
        return 0
    return _nothing_ran(run.records, err) or 1


def _plain_events(err: Console) -> Any:
    def emit(kind: str, data: dict[str, Any]) -> None:
        if kind == "cell-done":
            err.print(render.summary_line(data))
        elif kind in ("backend", "skipped", "build"):
            err.print(f"{kind}: " + ", ".join(str(v) for v in data.values()), markup=False)
    return emit


def cmd_report(args: argparse.Namespace, err: Console, out: Console) -> int:
    from harness.reporting import aggregate

    for folder in (args.run_dir, args.compare):
        if folder is not None and not (folder / "manifest.json").is_file() and not list(folder.glob("*/*.json")):
            raise UsageError(f"{folder} holds no results (give a run folder such as results/<run-id>)")
    matrix = aggregate.write_reports(args.run_dir, compare_with=args.compare)
    _show_matrix(matrix, args.json, out)
    err.print(f"{render.matrix_summary(matrix)}; written: matrix.md, matrix.json, report.html in {args.run_dir}")
    return 0


def _show_matrix(matrix: dict[str, Any], as_json: bool, out: Console) -> None:
    if as_json:
        print(json.dumps(matrix, indent=1, sort_keys=True))
        return
    out.print(render.matrix_table(matrix))
    out.print(render.tolerance_line())


def cmd_scenarios(out: Console) -> int:
    from harness.environments import config
    from harness.running import catalogue

    envs = list(config.load_environments().values())
    lines = ["| scenario | technique | seed | envs |", "|---|---|---|---|"]
    for item in catalogue.discover():
        where = ", ".join(env.name for env in envs if catalogue.applies(env, item))
        lines.append(f"| `{item.name}` | {item.technique} | {item.seed or 'beyond the seeds'} | {where} |")
    out.print("\n".join(lines), markup=False, highlight=False, soft_wrap=True)
    return 0


def cmd_doctor(args: argparse.Namespace, err: Console, out: Console) -> int:
    from harness.environments.doctor import run_checks

    if args.cluster:
        return _doctor_cluster(args.cluster, out)
    nvml = Nvml.open()
    try:
        checks = run_checks(nvml)
    finally:
        nvml.close()
    for check in checks:
        out.print(_check_line(check), soft_wrap=True)
    return 0 if all(c.ok is not False for c in checks if c.name in ("Docker engine",)) else 1


def _check_line(check: Any) -> str:
    mark = {True: "[green]✓[/]", False: "[red]✕[/]", None: "[dim]•[/]"}[check.ok]
    return f"{mark} {check.name}: {check.detail}" + (f" [yellow]→ {check.fix}[/]" if check.fix else "")


def _doctor_cluster(address: str, out: Console) -> int:
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
                out.print("    " + _check_line(check), soft_wrap=True)
    return 1 if bad else 0


def cmd_clean(err: Console) -> int:
    from harness.environments.docker_client import connect
    from harness.measurement.backends.docker import remove_labelled

    err.print(f"removed {remove_labelled(connect())} container(s) labelled by this tool")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    err, out = _console(stderr=True), _console(stderr=False)
    signal.signal(signal.SIGTERM, _terminate)
    try:
        if args.command == "run":
            return cmd_run(args, err, out)
        if args.command == "matrix":
            return cmd_matrix(args, err, out)
        if args.command == "images":
            return cmd_images(args, err)
        if args.command == "repro":
            return cmd_repro(args, err, out)
        if args.command == "report":
            return cmd_report(args, err, out)
        if args.command == "bisect":
            return cmd_bisect(args, err, out)
        if args.command == "scenarios":
            return cmd_scenarios(out)
        if args.command == "doctor":
            return cmd_doctor(args, err, out)
        if args.command == "clean":
            return cmd_clean(err)
    except HarnessError as exc:
        err.print(f"harness: error: {exc.message}", markup=False, highlight=False, soft_wrap=True)
        if exc.detail:
            err.print(exc.detail, markup=False, highlight=False, style="dim")
        return exc.exit_code
    except KeyboardInterrupt:
        err.print("harness: interrupted; cells already finished are kept under results/")
        return 130
    raise AssertionError(f"unhandled command {args.command}")


def _terminate(signum: int, frame: object) -> None:
    """SIGTERM unwinds like Ctrl-C, so every cell's ``finally`` removes what it started."""
    raise KeyboardInterrupt
