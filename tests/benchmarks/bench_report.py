"""Render 2,000 cells in every format and print the time (target: under 2 s for all formats).

The cells are copies of the H200 reference records (real readings and timelines), spread over
100 scenarios x 20 environments. Usage: python tests/benchmarks/bench_report.py [--cells 2000]
"""
from __future__ import annotations

import argparse
import copy
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from harness.reporting import aggregate, matrix_md, render, report_html  # noqa: E402
from harness.store import results  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cells", type=int, default=2000)
    args = parser.parse_args()
    sources = [results.load_record(p) for p in sorted((ROOT / "matrix/reference/h200-580.159.04/host-python3").glob("*.json.gz"))]
    envs = 20
    records = []
    for i in range(args.cells):
        record = copy.deepcopy(sources[i % len(sources)])
        record["env"]["name"] = f"env{i % envs:02d}"
        record["scenario"]["name"] = f"{record['scenario']['name']}#{i // (envs * len(sources))}"
        records.append(record)
    planned = [(r["env"]["name"], r["scenario"]["name"]) for r in records]
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = Path(tmp) / "bench"
        for record in records:
            results.write_record(run_dir, record)
        timings = {}
        start = time.perf_counter()
        loaded, broken = results.read_records(run_dir)
        timings["read records"] = time.perf_counter() - start
        start = time.perf_counter()
        matrix = aggregate.matrix_from(loaded, broken, "bench", planned)
        timings["matrix (+ claims)"] = time.perf_counter() - start
        start = time.perf_counter()
        text_json = json.dumps(matrix, indent=1, sort_keys=True)
        timings["matrix.json"] = time.perf_counter() - start
        start = time.perf_counter()
        text_md = matrix_md.to_markdown(matrix)
        timings["matrix.md"] = time.perf_counter() - start
        start = time.perf_counter()
        page = report_html.render(matrix, loaded)
        timings["report.html"] = time.perf_counter() - start
        start = time.perf_counter()
        from rich.console import Console

        Console(file=open("/dev/null", "w"), width=200).print(render.matrix_table(matrix))
        timings["terminal table"] = time.perf_counter() - start
    for name, seconds in timings.items():
        print(f"{name:>18}: {seconds:6.3f} s")
    render_total = sum(v for k, v in timings.items() if k != "read records")
    print(f"{args.cells} cells: all formats rendered in {render_total:.2f} s (target < 2 s); reading the records took "
          f"{timings['read records']:.2f} s; sizes: json {len(text_json) / 1e6:.1f} MB, md {len(text_md) / 1e6:.1f} MB, "
          f"html {len(page) / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
