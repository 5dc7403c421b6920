"""Run scripts bare and under `harness repro`, and compare what the scripts themselves saw.

A fidelity script prints lines starting with ``FIDELITY``: what it found (modules, threads, its
allocator, a child's exit code). Bare and under repro, those lines and the process's exit code
must be identical; a table shows each script's outcome and what repro said of it.

    python tests/fidelity/compare.py --interpreter PY SCRIPT... [--results DIR] [--json OUT]
    python tests/fidelity/compare.py --image IMAGE SCRIPT...      (bare: `docker run` of the image)

Exit 0 when every script behaved the same both ways, 1 otherwise.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
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


def run_bare(script: Path, interpreter: str | None, image: str | None, timeout: float) -> tuple[int | None, str, float]:
    """The script as a user runs it: output to a file (a detached child may keep a pipe open)."""
    marker = f"FIDELITY_BARE_RUN={uuid.uuid4().hex}"
    if image:
        command = [*DOCKER_BARE, "-v", f"{script.parent}:{MOUNT}:ro", image, "python", f"{MOUNT}/{script.name}"]
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
              extra: list[str]) -> tuple[dict[str, Any], str, str]:
    """The record of the script's one cell, its log, and repro's Markdown block."""
    where = ["--image", image] if image else ["--interpreter", interpreter or sys.executable]  # its frameworks: detected
    command = [sys.executable, "-m", "harness", "repro", str(script), *where, "--results", str(results),
               "--timeout", str(timeout), *extra]
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
            extra: list[str]) -> Outcome:
    bare_exit, bare_out, bare_s = run_bare(script, interpreter, image, timeout)
    record, log, markdown = run_repro(script, interpreter, image, results, timeout, extra)
    exit_code = record.get("exit_code")
    return Outcome(script=script.name, bare_exit=bare_exit, repro_exit=exit_code, bare_lines=marked(bare_out),
                   repro_lines=marked(log), bare_s=round(bare_s, 2), status=str(record.get("status")),
                   exit_s=record.get("exit_s"), repro_said=said(markdown))


def table(outcomes: list[Outcome]) -> str:
    rows = ["| script | bare exit | repro exit | output | repro status | exit after end | what repro said |",
            "|---|---|---|---|---|---|---|"]
    for o in outcomes:
        same = "identical" if o.bare_lines == o.repro_lines else "DIFFERS"
        rows.append(f"| {o.script} | {o.bare_exit} | {o.repro_exit} | {same} ({len(o.bare_lines)} lines) | {o.status} | "
                    f"{'' if o.exit_s is None else f'{o.exit_s:.1f} s'} | {'<br>'.join(o.repro_said)} |")
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
    args = parser.parse_args(argv)
    args.results.mkdir(parents=True, exist_ok=True)
    outcomes = []
    for script in args.scripts:
        outcome = compare(script.resolve(), args.interpreter, args.image, args.results.resolve(), args.timeout,
                          args.repro_arg)
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
