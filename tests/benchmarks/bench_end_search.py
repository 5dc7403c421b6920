"""What the holder search at a script's `end` costs on a process with many Python objects, and what it finds.

A real script (process backend, this Python) makes N small objects the collector tracks (a list of N dicts:
the shape of a dataset's index or a tokenizer's cache) and a loop that keeps 30 buffers of 8 MiB. Prints,
for each N: the search's seconds as the record keeps them, whether it stopped at its budget
(holders.BUDGET_S), what it named first, and the script's wall time bare and under repro.
Usage: python tests/benchmarks/bench_end_search.py [--objects 1000000] [--objects 100000 ...]
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from harness.measurement.backends.process import ProcessBackend  # noqa: E402
from harness.measurement.nvml import Nvml  # noqa: E402
from harness.measurement.runner import CellOptions, run_cell  # noqa: E402
from harness.running import repro  # noqa: E402

SCRIPT = """{imports}index = [{{"id": i, "tokens": (i, i + 1)}} for i in range({n})]
kept = []
for step in range(30):
    kept.append(bytearray(8 << 20))
print("done", len(index), len(kept))
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--objects", type=int, action="append", default=[])
    parser.add_argument("--python", default=sys.executable, help="an interpreter with torch: its tensors are then "
                        "scanned for among every object the collector tracks")
    args = parser.parse_args()
    counts = args.objects or [100_000, 1_000_000]
    torch = subprocess.run([args.python, "-c", "import torch"], capture_output=True).returncode == 0
    for n in counts:
        with tempfile.TemporaryDirectory() as folder:
            script = Path(folder) / "many.py"
            imports = "import torch\nweights = torch.ones(1 << 20)\n" if torch else ""
            script.write_text(SCRIPT.format(n=n, imports=imports))
            began = time.monotonic()
            subprocess.run([args.python, str(script)], check=True, capture_output=True)
            bare = time.monotonic() - began
            options = CellOptions(run_id="b", run_dir=Path(folder) / "r", env_name="local", env_facts={}, params={})
            began = time.monotonic()
            record = run_cell(ProcessBackend(python=args.python), repro.script_scenario(script, plain=True), options,
                              Nvml(False, "not needed"))
            measured = time.monotonic() - began
            found = record["checkpoints"][-1].get("holders") or {}
            first = (found.get("holders") or [{}])[0]
            what = f"{n:>9,} objects{' and torch' if torch else ''}"
            print(f"{what}: search at end {found.get('seconds')} s (budget {found.get('budget_s')} s, "
                  f"stopped early: {bool(found.get('budget_hit'))}); first holder {first.get('owner')} "
                  f"{(first.get('bytes') or 0) >> 20} MiB; script bare {bare:.2f} s, under repro {measured:.2f} s")


if __name__ == "__main__":
    main()
