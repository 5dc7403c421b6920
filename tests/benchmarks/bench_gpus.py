"""Wall time of the same matrix rows on one GPU and on every GPU of the host (one cell per GPU).

Usage: python tests/benchmarks/bench_gpus.py [--interpreter python3 | --image REF] [--family torch ...] [--scenario GLOB ...]
``--image``: the rows in that image through the docker backend (the GPU mode the harness chooses),
one container per cell, each given its cell's GPU. Prints both wall times and the speed-up. Needs a
host with two or more GPUs (NVML).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from harness.definitions import config  # noqa: E402
from harness.measurement.nvml import Nvml  # noqa: E402
from harness.running.matrix import run_matrix
from harness.running.request import MatrixOptions  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--interpreter", default="python3")
    parser.add_argument("--image", help="run the rows in this image (docker backend) instead of --interpreter")
    parser.add_argument("--family", action="append", default=None)
    parser.add_argument("--scenario", action="append", default=None)
    args = parser.parse_args()
    nvml = Nvml.open()
    if not nvml.available or len(nvml.gpus) < 2:
        print(f"needs 2+ GPUs; found {len(nvml.gpus) if nvml.available else 0} ({nvml.reason})")
        return 1
    families = args.family or ["torch", "jax", "cupy"]
    env = config.adhoc_image(args.image, families) if args.image else config.adhoc_interpreter(args.interpreter, families)
    backend = "docker" if args.image else "auto"
    walls = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, gpus in (("1 GPU", [0]), (f"{len(nvml.gpus)} GPUs", list(range(len(nvml.gpus))))):
            start = time.monotonic()
            run = run_matrix(MatrixOptions(extra_envs=[env], scenarios=args.scenario, results_root=Path(tmp) / label,
                                           gpu_indices=gpus, backend=backend), nvml, lambda kind, data: None)
            walls[label] = time.monotonic() - start
            bad = [r for r in run.records if r["status"] not in ("ok", "unsupported")]
            modes = sorted({str(r["env"].get("gpu_mode") or r["env"].get("backend")) for r in run.records})
            print(f"{label}: {len(run.records)} cells, {len(bad)} not ok, wall {walls[label]:.1f}s ({', '.join(modes)})",
                  flush=True)
    one, many = walls.values()
    print(f"speed-up: {one / many:.2f}x ({one:.1f}s on one GPU, {many:.1f}s on {len(nvml.gpus)})")
    nvml.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
