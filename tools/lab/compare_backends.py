"""Compare two environments of one matrix run checkpoint by checkpoint (docker vs process).

Usage: python tools/lab/compare_backends.py RUN_DIR ENV_A ENV_B
Prints, per scenario and checkpoint, each env's per-process NVML reading above its floor and the
difference, and whether it lies within the verdict tolerance, then a one-line summary.
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from harness.judgement import tolerances  # noqa: E402
from harness.reporting.render import human_bytes  # noqa: E402
from harness.store import results  # noqa: E402


def levels(record: dict) -> dict[str, int]:
    cps = record["checkpoints"]
    floor = next((cp for cp in cps if cp["label"] == "ready"), cps[0] if cps else None)
    if floor is None or floor["readings"].get("nvml_process") is None:
        return {}
    base = floor["readings"]["nvml_process"]
    return {cp["label"]: cp["readings"]["nvml_process"] - base for cp in cps if cp["readings"].get("nvml_process") is not None}


def main(run_dir: str, env_a: str, env_b: str) -> int:
    records, _ = results.read_records(Path(run_dir))
    by = {(r["env"]["name"], r["scenario"]["name"]): r for r in records}
    rows, agree, total = [], 0, 0
    for (env, name), rec_a in sorted(by.items()):
        if env != env_a or (env_b, name) not in by:
            continue
        la, lb = levels(rec_a), levels(by[(env_b, name)])
        for label in [lbl for lbl in la if lbl in lb]:
            tol = tolerances.tolerance(max(abs(la[label]), abs(lb[label])))
            ok = abs(la[label] - lb[label]) <= tol
            agree, total = agree + ok, total + 1
            rows.append(f"| {name} | {label} | {human_bytes(la[label])} | {human_bytes(lb[label])} | "
                        f"{human_bytes(la[label] - lb[label])} | {'yes' if ok else 'NO'} |")
    print(f"| scenario | checkpoint | {env_a} | {env_b} | difference | within tolerance |")
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))
    print(f"\n{agree}/{total} checkpoints agree within max(64 MiB, 5%) (GPU memory above each cell's floor, NVML per process)")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
