"""What a container adds to a cell: one scenario measured by the harness in a container and bare, in a process.

Both sides run the same scenario through `harness matrix`: bare with `--backend process --interpreter PY`
(a Python that has the framework), in a container with `--backend docker --image IMAGE` (the image's
own Python and framework), alternately, --runs times after one of each that is not counted (file
caches, the GPU's clocks). On a GPU host both cells get the GPU, the container as --gpu-mode says
(default: as `nox -s doctor` chooses). Each cell's time is split by its record's own timestamps:

  start-up        the cell's start to the agent's first reading (a container: create and start it too)
  imports, CUDA   that reading to the scenario's first checkpoint (the framework's import, CUDA's init)
  scenario        its first to its last checkpoint
  teardown        the last checkpoint to the cell's end (the exit, the after-exit reading; a container's removal)

and the container's start-up by probes of its parts, each run as the cell's container is (the
image, its user, no network, the GPU): a container that runs `true` (create, start, wait, remove:
what the engine costs), and Python with the framework's import in the image beside the bare
interpreter (the image's layers and its own build against the host's). What is left of the
difference is the agent's, in its container (its mounts, its channel). Prints the medians and the
container cell's wall time against the bare cell's (goal: within 10 %).

Usage: python tests/benchmarks/bench_container_overhead.py --image IMAGE [--interpreter PY]
       [--scenario torch/del_gc_empty_cache] [--runs 5] [--variant gpu|cpu] [--gpu-mode MODE]
"""
from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from harness.store.results import load_record  # noqa: E402

IMPORTS = {"torch": "torch", "jax": "jax", "cupy": "cupy", "tf1": "tensorflow", "tf2": "tensorflow"}
PARTS = ("start-up", "imports, CUDA", "scenario", "teardown")


def harness(argv: list[str]) -> float:
    """One `python -m harness ...` run, timed; its output kept back, shown if it fails."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "harness", *argv], capture_output=True, text=True, cwd=ROOT,
                          env=dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [os.environ.get("PYTHONPATH"),
                                                                                      str(ROOT)]))))
    if done.returncode != 0:
        sys.exit(f"harness {' '.join(argv)} failed ({done.returncode}):\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return time.perf_counter() - started


def parts(record: dict[str, Any]) -> dict[str, float]:
    """A cell's time by part, from its record's timestamps (the agent's clock is the host's)."""
    began = dt.datetime.fromisoformat(record["started_at"]).timestamp()
    points = record["checkpoints"]
    first_reading = (record.get("pre_gpu") or points[0])["t"]
    return {"cell": record["duration_s"], "start-up": first_reading - began, "imports, CUDA": points[0]["t"] - first_reading,
            "scenario": points[-1]["t"] - points[0]["t"], "teardown": began + record["duration_s"] - points[-1]["t"],
            "status ok": float(record["status"] == "ok")}


def one_record(results: Path, before: set[Path]) -> dict[str, Any]:
    """The record the last run wrote under ``results``."""
    new = [p for p in results.glob("*/*/*.json*") if p not in before and p.name != "manifest.json"]
    if len(new) != 1:
        sys.exit(f"expected one new record under {results}, found {len(new)}")
    before.add(new[0])
    return dict(load_record(new[0]))


def probes(image: str, python: str, framework: str, gpu_mode: str, variant: str, runs: int) -> dict[str, list[float]]:
    """The container's parts, each run as the cell's container is (the image, its user, no network,
    the GPU): create and start, then wait and remove, an empty container (`true`); Python's start
    (`-c pass`) and the framework's import in the image, and the same bare."""
    import docker

    from harness.measurement import gpu_access
    from harness.measurement.backends.docker import DockerBackend
    from harness.measurement.nvml import Nvml

    client = docker.from_env()
    nvml = Nvml.open().available
    access = gpu_access.for_run(client.info(), variant or ("gpu" if nvml else "cpu"), nvml, gpu_mode or None)
    backend = DockerBackend(client, image, access=access)
    options = {k: v for k, v in backend.gpu_options().items() if k != "mounts"}  # `devices` mode's library mounts aside
    options.update(network_mode="none", user=backend.user or None, working_dir="/tmp", tmpfs={"/tmp": "rw,exec,mode=1777"})
    code = f"import time; t = time.time(); import {IMPORTS[framework]}; print(time.time() - t)"

    def contained(argv: list[str]) -> tuple[float, float, str]:
        started = time.perf_counter()
        container = client.containers.create(image, argv, **options)
        container.start()
        up = time.perf_counter()
        container.wait()
        ran = time.perf_counter()
        said = container.logs(stdout=True, stderr=False).decode()
        container.remove(force=True)
        return up - started, time.perf_counter() - ran, said

    def timed_bare(argv: list[str]) -> tuple[float, str]:
        started = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, text=True, check=True)
        return time.perf_counter() - started, done.stdout

    out: dict[str, list[float]] = {k: [] for k in ("create + start", "wait + remove", "python, image", "python, bare",
                                                   "import, image", "import, bare")}
    for turn in range(runs + 1):
        up, down, _ = contained(["true"])
        started = time.perf_counter()
        contained([backend.python, "-c", "pass"])
        python_image = time.perf_counter() - started - up - down  # what Python adds to an empty container
        _, _, said = contained([backend.python, "-c", code])
        python_bare, _ = timed_bare([python, "-c", "pass"])
        _, bare_said = timed_bare([python, "-c", code])
        if turn:  # the first of each warms caches: not counted
            for key, value in (("create + start", up), ("wait + remove", down), ("python, image", python_image),
                               ("python, bare", python_bare), ("import, image", float(said.split()[-1])),
                               ("import, bare", float(bare_said.split()[-1]))):
                out[key].append(value)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--image", required=True, help="an image with the framework (its own Python on PATH)")
    parser.add_argument("--interpreter", default=sys.executable, help="a Python with the same framework (default: this one)")
    parser.add_argument("--scenario", default="torch/del_gc_empty_cache")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--variant", choices=("cpu", "gpu"), default=None, help="default: gpu with an NVIDIA GPU")
    parser.add_argument("--gpu-mode", default="", help="how the container gets the GPU (default: as doctor chooses)")
    args = parser.parse_args()
    family = args.scenario.split("/")[0]
    common = ["matrix", "--scenario", args.scenario, "--family", family]
    common += ["--variant", args.variant] if args.variant else []
    bare_argv = [*common, "--backend", "process", "--interpreter", args.interpreter]
    mode = ["--gpu-mode", args.gpu_mode] if args.gpu_mode else []
    boxed_argv = [*common, "--backend", "docker", "--image", args.image, *mode]
    walls: dict[str, list[float]] = {"bare": [], "container": []}
    cells: dict[str, list[dict[str, float]]] = {"bare": [], "container": []}
    with tempfile.TemporaryDirectory() as tmp:
        results, seen = Path(tmp) / "results", set[Path]()
        for turn in range(args.runs + 1):
            order = [("bare", bare_argv), ("container", boxed_argv)]
            for side, argv in order if turn % 2 == 0 else order[::-1]:
                wall = harness([*argv, "--results", str(results)])
                record = one_record(results, seen)
                if turn:
                    walls[side].append(wall)
                    cells[side].append(parts(record))
    probed = probes(args.image, args.interpreter, family, args.gpu_mode, args.variant or "", args.runs)
    report(args, walls, cells, probed)


def report(args: argparse.Namespace, walls: dict[str, list[float]], cells: dict[str, list[dict[str, float]]],
           probed: dict[str, list[float]]) -> None:
    med = statistics.median
    print(f"{args.scenario}: bare ({args.interpreter}) against a container of {args.image}, {args.runs} runs each "
          f"(ok: bare {sum(c['status ok'] for c in cells['bare']):.0f}, container "
          f"{sum(c['status ok'] for c in cells['container']):.0f})")
    print(f"{'part (median s)':<34}{'bare':>9}{'container':>11}{'difference':>12}")
    for name in ("harness matrix command", "cell", *PARTS):
        b = med(walls["bare"]) if name == "harness matrix command" else med(c[name] for c in cells["bare"])
        c = med(walls["container"]) if name == "harness matrix command" else med(x[name] for x in cells["container"])
        print(f"{name:<34}{b:>9.2f}{c:>11.2f}{c - b:>+12.2f}")
    gap = {name: med(x[name] for x in cells["container"]) - med(x[name] for x in cells["bare"]) for name in PARTS}
    up, down = med(probed["create + start"]), med(probed["wait + remove"])
    python = med(probed["python, image"]) - med(probed["python, bare"])
    imports = med(probed["import, image"]) - med(probed["import, bare"])
    print("the differences, by part (probes, median s):")
    print(f"  start-up {gap['start-up']:+.2f}: the container's create and start {up:.2f}, Python's start in the image "
          f"{python:+.2f} against bare, the rest (the agent, its mounts and channel) {gap['start-up'] - up - python:+.2f}")
    print(f"  imports, CUDA {gap['imports, CUDA']:+.2f}: the import from the image's layers {imports:+.2f} "
          f"({med(probed['import, image']):.2f} s there, {med(probed['import, bare']):.2f} s bare), "
          f"the rest {gap['imports, CUDA'] - imports:+.2f}")
    print(f"  scenario {gap['scenario']:+.2f}; teardown {gap['teardown']:+.2f}: the container's wait and removal "
          f"{down:.2f}, the rest {gap['teardown'] - down:+.2f}")
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        # seen on a lent GPU host: its torch had no bytecode, so every bare import compiled it (2.87 s, 1.38 s
        # from the image, whose pip compiled it at install)
        print("note: PYTHONDONTWRITEBYTECODE is set here: the bare Python compiles the framework's modules at every "
              "import, the image's were compiled when it was built; unset it (with PYTHONPYCACHEPREFIX where "
              "site-packages is read-only) to compare like with like")
    b, c = med(x["cell"] for x in cells["bare"]), med(x["cell"] for x in cells["container"])
    print(f"the container cell takes {c:.2f} s against {b:.2f} s bare: {(c - b) / b:+.1%} (goal: within 10 %)")


if __name__ == "__main__":
    main()
