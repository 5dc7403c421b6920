"""What measuring costs: a ~5 s torch script run bare, and through `harness repro` (process backend).

Prints the median wall time of each over --runs runs, the difference, and where a repro's time goes. On a GPU host the script
works on the GPU; elsewhere on the CPU. Usage: python tests/benchmarks/bench_repro_overhead.py [--runs N] [--seconds S]
"""
from __future__ import annotations

import argparse
import ast
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = """import time
marks = [time.time()]
import torch
marks.append(time.time())
device = "cuda" if torch.cuda.is_available() else "cpu"
x = torch.randn(2048, 2048, device=device)
if device == "cuda":
    torch.cuda.synchronize()
marks.append(time.time())
end = time.time() + {seconds}
while time.time() < end:
    y = x @ x
    if device == "cuda":
        torch.cuda.synchronize()
marks.append(time.time())
del x, y
marks.append(time.time())
with open({own!r}, "w") as own:
    own.write(repr([b - a for a, b in zip(marks, marks[1:])]))
"""
# what the script times of itself, mark to mark: under repro each holds the checkpoints placed in it
SEGMENTS = ("import torch (its checkpoint after)", "the first CUDA tensor (CUDA's start)",
            "the loop (time-bound: its checkpoints cost iterations)", "del x, y (its checkpoint and holder search)")


LAUNCHED: list[float] = []  # when each repro was started (epoch s): the CLI's time before its cell


def own_lines(path: Path) -> list[float]:
    """The script's own time from mark to mark (SEGMENTS), as it wrote it (bare and under repro alike)."""
    return [float(x) for x in ast.literal_eval(path.read_text())]


def timed(argv: list[str]) -> float:
    LAUNCHED.append(time.time())
    started = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True, cwd=ROOT,
                   env=dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [os.environ.get("PYTHONPATH"), str(ROOT)]))))
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=5.0, help="how long the script works (default 5)")
    args = parser.parse_args()
    bare: list[float] = []
    repro: list[float] = []
    launched: list[float] = []
    own_bare: list[list[float]] = []
    own_repro: list[list[float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        script, own = Path(tmp) / "five_seconds.py", Path(tmp) / "own_seconds"
        script.write_text(SCRIPT.format(seconds=args.seconds, own=str(own)))
        python = sys.executable
        # An installed harness has its bytecode; a fresh checkout would pay ~0.2 s compiling it every run.
        subprocess.run([python, "-m", "compileall", "-q", str(ROOT / "harness")], check=True)
        results = Path(tmp) / "results"
        # One of each first, not counted (file caches, the GPU's clocks), then alternately, so a
        # drift of the machine falls on both sides alike.
        # Which goes first alternates (a run right after another may find the GPU still tearing the
        # last one's context down).
        for turn in range(args.runs + 1):
            first_bare = turn % 2 == 0
            b = timed([python, str(script)]) if first_bare else 0.0
            ob = own_lines(own) if first_bare else []
            r = timed([python, "-m", "harness", "repro", str(script), "--interpreter", python, "--results", str(results)])
            orr = own_lines(own)
            launched.append(LAUNCHED[-1])
            b = b if first_bare else timed([python, str(script)])
            ob = ob if first_bare else own_lines(own)
            if turn:
                bare.append(b)
                repro.append(r)
                own_bare.append(ob)
                own_repro.append(orr)
        startup = statistics.median(timed([python, "-c", "pass"]) for _ in range(5))
        records = sorted(results.glob("*/*/repro__five_seconds.json"))[1:]  # run ids sort by start time
        phases = [_phases(path, wall, at) for path, wall, at in zip(records, repro, launched[1:], strict=True)]
    b, r = statistics.median(bare), statistics.median(repro)
    cell = statistics.median(p["cell"] for p in phases)
    print(f"bare script:   median {b:.2f} s of {args.runs} ({', '.join(f'{x:.2f}' for x in bare)})")
    print(f"harness repro: median {r:.2f} s of {args.runs} ({', '.join(f'{x:.2f}' for x in repro)})")
    print(f"the cell alone (agent start to cell done): median {cell:.2f} s, {(cell - b) / b:+.1%} vs bare")
    print(f"repro costs {r - b:+.2f} s ({(r - b) / b:+.0%})")
    # The script's own first-to-last line, timed by itself: whether it runs slower for being measured (its
    # checkpoints pause it while they settle; its loop is time-bound, so those inside it cost iterations).
    ob_, or_ = statistics.median(map(sum, own_bare)), statistics.median(map(sum, own_repro))
    print(f"the script's own lines, first to last, as it timed them: bare median {ob_:.3f} s, under repro "
          f"{or_:.3f} s ({or_ - ob_:+.3f} s), by segment (median s, bare / repro):")
    for n, name in enumerate(SEGMENTS):
        b_n, r_n = statistics.median(t[n] for t in own_bare), statistics.median(t[n] for t in own_repro)
        print(f"  {name:<58} {b_n:6.3f} / {r_n:6.3f} ({r_n - b_n:+.3f})")
    # Each repro beside the bare run just before it: a drift of the machine (clocks, caches) cancels.
    pairs = sorted(y - x for x, y in zip(bare, repro, strict=True))
    quartiles = statistics.quantiles(pairs, n=4) if len(pairs) > 1 else [pairs[0]] * 3
    print(f"paired (each repro minus the bare run before it): median {statistics.median(pairs):+.2f} s, "
          f"quartiles {quartiles[0]:+.2f} .. {quartiles[2]:+.2f} s")
    # What the harness adds around the script's own life (its lines and its exit, as bare has them):
    # free of the script's own spread from run to run.
    direct = [p["wall"] - p["script"] - p["exit"] - startup for p in phases]
    print(f"the harness around the script (repro wall minus the script's own lines and exit, minus a bare "
          f"Python's start-up {startup:.2f} s): median {statistics.median(direct):+.2f} s "
          f"({', '.join(f'{x:+.2f}' for x in direct)})")
    print("where a repro's time goes (median s; * the script's own, which bare pays too):")
    for name in (n for n in phases[0] if n not in ("cell", "wall", "exit", "script", "rate", "slow", "checkpoints")):
        print(f"  {name:<58} {statistics.median(p[name] for p in phases):6.3f}")
    slow = [n for p in phases for n in p["slow"]]
    print(f"checkpoints: median {statistics.median(p['checkpoints'] for p in phases):.0f} a run; settled past the fast "
          f"window: {len(slow)} in {len(phases)} runs ({', '.join(sorted(set(slow))) or 'none'})")
    print(f"timeline: median {statistics.median(p['rate'] for p in phases):.0f} Hz achieved; one reading of every "
          f"meter costs {_reading_cost() * 1e3:.2f} ms here (median of 200)")


def _reading_cost() -> float:
    """What one reading of every meter (RSS, NVML device and per-process) costs on this host."""
    from harness.measurement.meters import Meters
    from harness.measurement.nvml import Nvml

    meters, pids, took = Meters(Nvml.open()), {os.getpid()}, []
    for _ in range(200):
        started = time.perf_counter()
        meters.read(pids)
        took.append(time.perf_counter() - started)
    return statistics.median(took)


def _phases(path: Path, wall: float, launched: float) -> dict[str, Any]:
    """A repro run's wall time by phase, from its record's timestamps (``launched``: when its CLI was started)."""
    import datetime as dt
    import json

    record = json.loads(path.read_text())
    began = dt.datetime.fromisoformat(record["started_at"]).timestamp()
    done = began + record["duration_s"]
    cps = record["checkpoints"]
    pre, start, end = record["pre_gpu"]["t"], cps[0]["t"], cps[-1]["t"]
    settles = [cp["settle"]["settle_s"] for cp in cps if cp.get("settle")]
    after = ((record.get("after_exit") or {}).get("settle") or {}).get("settle_s") or 0.0
    trim = record.get("heap_trim") or {}
    census = (trim.get("garbage") or {}).get("seconds") or 0.0
    exit_s = record.get("exit_s") or 0.0
    timeline = record.get("timeline") or {}
    return {"cell": record["duration_s"], "wall": wall, "exit": exit_s, "script": end - start,
            "CLI before the cell (interpreter, imports, plan)": began - launched,
            "agent start to pre_gpu (the agent's own start)": pre - began,
            "pre_gpu to start (* imports, CUDA init)": start - pre,
            "script: start to end (* its lines)": end - start - sum(settles),
            "checkpoint readings settling (every checkpoint)": sum(settles),
            "heap trim and gc census at end": (trim.get("seconds") or 0.0) + census,
            "end to exit reported (* atexit, CUDA teardown)": exit_s,
            "after exit: the reading and teardown of the cell": done - end - exit_s - census - (trim.get("seconds") or 0.0)
            - ((cps[-1].get("settle") or {}).get("settle_s") or 0.0),
            "  of which the after-exit reading settled in": after,
            "CLI after the cell (judge, matrix.json, report.html, repro.md)": launched + wall - done,
            "rate": float(timeline.get("rate_hz") or 0.0), "checkpoints": len(cps),
            "slow": [f"{cp['label'][:40]} {cp['settle']['settle_s']:.3f} s" for cp in cps
                     if not (cp.get("settle") or {}).get("fast")]}


if __name__ == "__main__":
    main()
