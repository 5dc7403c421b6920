"""Run scripts bare and under `harness repro`, and compare what the scripts themselves saw.

A fidelity script prints lines starting with ``FIDELITY``: what it found (modules, threads, its
allocator, a child's exit code). Bare and under repro, those lines and the process's exit code
must be identical; a table shows each script's outcome and what repro said of it.

    python tests/fidelity/compare.py --interpreter PY SCRIPT... [--results DIR] [--json OUT]
    python tests/fidelity/compare.py --image IMAGE SCRIPT...      (bare: `docker run` of the image, its
                                    launcher too; FIDELITY_DOCKER_GPUS="--gpus=all" gives it the GPUs)
    python tests/fidelity/compare.py --interpreter PY --launcher "torchrun --standalone --nproc_per_node=2" SCRIPT...
                                    (bare: the launcher's command; repro: `repro -- LAUNCHER SCRIPT`)

Where NVML answers, each GPU's device memory is sampled (20 Hz) during both runs: the peak per GPU.

Exit 0 when every script behaved the same both ways, 1 otherwise.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

MARK = "FIDELITY"
REPO = Path(__file__).resolve().parents[2]
# As the docker backend starts a cell (measurement/backends/docker.py), less the agent.
DOCKER_BARE = ["docker", "run", "--rm", "--init", "--network", "none", "--user", "65534:65534", "-e", "HOME=/tmp",
               "-w", "/tmp", "--tmpfs", "/tmp:rw,exec,mode=1777"]
MOUNT = "/opt/harness/scenario"


@dataclass
class Outcome:
    script: str
    bare_exit: int | None
    repro_exit: int | None
    bare_lines: list[str]
    repro_lines: list[str]
    bare_s: float
    status: str = ""
    exit_s: float | None = None
    repro_said: list[str] = field(default_factory=list)
    bare_peaks: list[int] = field(default_factory=list)  # MiB per GPU, from NVML outside both runs
    repro_peaks: list[int] = field(default_factory=list)

    @property
    def same(self) -> bool:
        return self.bare_lines == self.repro_lines and self.bare_exit == self.repro_exit


def marked(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith(MARK)]


def _kill_marked(marker: str) -> None:
    """End what a bare run left behind (a detached helper keeps running, as it would for a user),
    found by the variable the bare run was started with, so the next run measures a clean GPU."""
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and marker.encode() in (proc / "environ").read_bytes():
                os.kill(int(proc.name), signal.SIGKILL)
        except OSError:
            continue


class GpuPeaks:
    """Each GPU's largest device-memory reading while a run lasts (NVML, 20 Hz); empty without NVML."""

    def __init__(self) -> None:
        self.peaks: list[int] = []
        self._stop = threading.Event()
        try:
            import pynvml
            pynvml.nvmlInit()
            self._handles = [pynvml.nvmlDeviceGetHandleByIndex(i) for i in range(pynvml.nvmlDeviceGetCount())]
            self._used = lambda h: pynvml.nvmlDeviceGetMemoryInfo(h).used
        except Exception:
            self._handles = []

    def __enter__(self) -> GpuPeaks:
        self.peaks = [0] * len(self._handles)
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self) -> None:
        while not self._stop.wait(0.05):
            for i, handle in enumerate(self._handles):
                self.peaks[i] = max(self.peaks[i], self._used(handle) >> 20)

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def run_bare(script: Path, interpreter: str | None, image: str | None, timeout: float,
             launcher: list[str] | None = None) -> tuple[int | None, str, float]:
    """The script as a user runs it: output to a file (a detached child may keep a pipe open)."""
    marker = f"FIDELITY_BARE_RUN={uuid.uuid4().hex}"
    if image:  # as a user runs it in that image: every GPU (FIDELITY_DOCKER_GPUS, e.g. --gpus=all), its own name resolving
        name = f"fidelity-{uuid.uuid4().hex[:8]}"
        gpus = os.environ.get("FIDELITY_DOCKER_GPUS", "").split()
        started = [*launcher] if launcher else ["python"]
        command = [*DOCKER_BARE, *gpus, "--hostname", name, "--add-host", f"{name}:127.0.0.1",
                   "-v", f"{script.parent}:{MOUNT}:ro", image, *started, f"{MOUNT}/{script.name}"]
    elif launcher:
        command = [*launcher, str(script)]
    else:
        command = [interpreter or sys.executable, str(script)]
    env = {**os.environ, marker.split("=")[0]: marker.split("=")[1]}
    began = time.monotonic()
    with tempfile.TemporaryFile() as output:
        proc = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
                                cwd=REPO)  # where repro runs it from too
        try:
            code: int | None = proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            code = None
        took = time.monotonic() - began
        _kill_marked(marker)
        output.seek(0)
        return code, output.read().decode("utf-8", "replace"), took


def run_repro(script: Path, interpreter: str | None, image: str | None, results: Path, timeout: float,
              extra: list[str], launcher: list[str] | None = None) -> tuple[dict[str, Any], str, str]:
    """The record of the script's one cell, its log, and repro's Markdown block."""
    where = ["--image", image] if image else ["--interpreter", interpreter or sys.executable]  # its frameworks: detected
    started = ["--", *launcher, str(script)] if launcher else [str(script)]
    command = [sys.executable, "-m", "harness", "repro", *where, "--results", str(results),
               "--timeout", str(timeout), *extra, *started]
    done = subprocess.run(command, capture_output=True, text=True, cwd=REPO, stdin=subprocess.DEVNULL)
    runs = sorted(results.iterdir(), key=lambda p: p.stat().st_mtime)
    run_dir = runs[-1]
    records = [json.loads(p.read_text()) for p in run_dir.glob("*/*.json")]
    if not records:
        raise RuntimeError(f"repro wrote no record for {script}: {done.stderr[-2000:]}")
    logs = list((run_dir / "logs").glob("*/*.log"))
    log = logs[0].read_text(errors="replace") if logs else ""
    return records[0], log, done.stdout


def said(markdown: str) -> list[str]:
    """repro's sentences about how the script ran (status, children, exit), for the table."""
    keep = ("Status:", "A process the script", "The script's process", "After exit")
    return [line.strip() for line in markdown.splitlines() if line.strip().startswith(keep)]


def compare(script: Path, interpreter: str | None, image: str | None, results: Path, timeout: float,
            extra: list[str], launcher: list[str] | None = None) -> Outcome:
    with GpuPeaks() as bare_peaks:
        bare_exit, bare_out, bare_s = run_bare(script, interpreter, image, timeout, launcher)
    with GpuPeaks() as repro_peaks:
        record, log, markdown = run_repro(script, interpreter, image, results, timeout, extra, launcher)
    exit_code = record.get("exit_code")
    name = f"{launcher[0]} {script.name}" if launcher else script.name
    # launched ranks' lines in rank order: two processes' lines interleave in any order
    ordered = sorted if launcher else list
    return Outcome(script=name, bare_exit=bare_exit, repro_exit=exit_code, bare_lines=ordered(marked(bare_out)),
                   repro_lines=ordered(marked(log)), bare_s=round(bare_s, 2), status=str(record.get("status")),
                   exit_s=record.get("exit_s"), repro_said=said(markdown), bare_peaks=bare_peaks.peaks,
                   repro_peaks=repro_peaks.peaks)


def table(outcomes: list[Outcome]) -> str:
    rows = ["| script | bare exit | repro exit | output | bare peak per GPU | repro peak per GPU | repro status | "
            "exit after end | what repro said |", "|---|---|---|---|---|---|---|---|---|"]
    for o in outcomes:
        same = "identical" if o.bare_lines == o.repro_lines else "DIFFERS"
        rows.append(f"| {o.script} | {o.bare_exit} | {o.repro_exit} | {same} ({len(o.bare_lines)} lines) | "
                    f"{' / '.join(f'{p} MiB' for p in o.bare_peaks)} | {' / '.join(f'{p} MiB' for p in o.repro_peaks)} | "
                    f"{o.status} | {'' if o.exit_s is None else f'{o.exit_s:.1f} s'} | {'<br>'.join(o.repro_said)} |")
    return "\n".join(rows)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scripts", nargs="+", type=Path)
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--interpreter", default=None)
    where.add_argument("--image", default=None)
    parser.add_argument("--results", type=Path, default=Path("results/fidelity"))
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--json", type=Path, default=None, help="write every outcome here")
    parser.add_argument("--repro-arg", action="append", default=[], help="passed on to repro (repeatable)")
    parser.add_argument("--launcher", default=None, help="the command that starts each script (torchrun ...)")
    args = parser.parse_args(argv)
    args.results.mkdir(parents=True, exist_ok=True)
    outcomes = []
    for script in args.scripts:
        outcome = compare(script.resolve(), args.interpreter, args.image, args.results.resolve(), args.timeout,
                          args.repro_arg, shlex.split(args.launcher) if args.launcher else None)
        outcomes.append(outcome)
        print(f"{outcome.script}: {'same' if outcome.same else 'DIFFERENT'}", file=sys.stderr, flush=True)
        for bare, under in zip(outcome.bare_lines, outcome.repro_lines, strict=False):
            if bare != under:
                print(f"  bare:  {bare[:300]}\n  repro: {under[:300]}", file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps([asdict(o) for o in outcomes], indent=1))
    print(table(outcomes))
    return 0 if all(o.same for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
