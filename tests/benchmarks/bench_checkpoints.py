"""What a checkpoint costs, and what checkpoints cost a long loop under `repro` (process backend).

Prints three figures (the README quotes them):
  1. a stdlib scenario with N checkpoints and nothing changing between them: ms per checkpoint;
  2. a 10,000-iteration loop with a cleanup line (`del batch`) and ~1 ms of work per iteration,
     run bare (`python script.py`) and under `repro`: seconds each and the slowdown in percent;
  3. how many of the loop's iterations were measured (looped checkpoints are sampled).
Usage: python tests/benchmarks/bench_checkpoints.py [--checkpoints 2000] [--iterations 10000]
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from harness.measurement import scenario  # noqa: E402
from harness.measurement.backends.process import ProcessBackend  # noqa: E402
from harness.measurement.nvml import Nvml  # noqa: E402
from harness.measurement.runner import CellOptions, run_cell  # noqa: E402
from harness.running import repro  # noqa: E402
from harness.store import results  # noqa: E402

SCENARIO = '''META = {"families": ["any"], "technique": "checkpoint cost", "params": {"n": 0}}
for i in range(PARAMS["n"]):
    checkpoint("c%d" % i)
'''
LOOP = '''import time
def step(i):
    deadline = time.perf_counter() + 0.001  # ~1 ms of work, like a small training step
    while time.perf_counter() < deadline:
        pass
    return bytearray(4096)
for i in range({n}):
    batch = step(i)
    del batch
'''


def _cell(spec: scenario.Scenario, params: dict[str, object], nvml: Nvml, where: Path) -> dict[str, object]:
    options = CellOptions(run_id=results.new_run_id(), run_dir=where, env_name="bench", env_facts={}, params=params,
                          timeout=3600, cpu_only=not nvml.available)
    return run_cell(ProcessBackend(python=sys.executable), spec, options, nvml)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--checkpoints", type=int, default=2000)
    parser.add_argument("--iterations", type=int, default=10000)
    args = parser.parse_args()
    nvml = Nvml.open()
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        path = where / "many.py"
        path.write_text(SCENARIO)
        spec = scenario.load(path)
        empty = _cell(spec, {"n": 0}, nvml, where)
        full = _cell(spec, {"n": args.checkpoints}, nvml, where)
        per = (float(full["duration_s"]) - float(empty["duration_s"])) / args.checkpoints
        settle = [cp["settle"]["settle_s"] for cp in full["checkpoints"]]  # type: ignore[index]
        print(f"meters: {'NVML + RSS' if nvml.available else 'RSS only (no NVML here)'}")
        print(f"{args.checkpoints} checkpoints, readings unchanged: {per * 1000:.1f} ms each "
              f"(settle median {statistics.median(settle) * 1000:.1f} ms)")

        script = where / "loop.py"
        script.write_text(textwrap.dedent(LOOP.format(n=args.iterations)))
        started = time.monotonic()
        subprocess.run([sys.executable, str(script)], check=True)
        bare = time.monotonic() - started
        item = repro.script_scenario(script, 3600, plain=True)
        record = _cell(item, {}, nvml, where)
        under = float(record["duration_s"])  # type: ignore[arg-type]
        looped = [cp for cp in record["checkpoints"] if "#" in cp["label"]]  # type: ignore[union-attr]
        print(f"{args.iterations}-iteration loop with `del batch`: bare {bare:.2f} s, under repro {under:.2f} s "
              f"({(under / bare - 1) * 100:+.1f}%), status {record['status']}")
        loops = record.get("loops") or {}
        print(f"iterations measured: {len(looped)} of {max(loops.values(), default=0)} (looped checkpoints are sampled)")
    nvml.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
