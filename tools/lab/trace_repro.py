"""Where a repro's wall time goes beyond the bare script's: each host-side phase timed (wall clock),
for one repro of SCRIPT with the host's Python. Usage: python tools/lab/trace_repro.py SCRIPT [RESULTS]"""
from __future__ import annotations

import functools
import sys
import time

T0 = time.time()
MARKS: list[tuple[float, str]] = []


def mark(what: str) -> None:
    MARKS.append((time.time(), what))


def timed(module: object, name: str) -> None:
    original = getattr(module, name)

    @functools.wraps(original)
    def wrapper(*args: object, **kwargs: object) -> object:
        mark(f"> {name}")
        try:
            return original(*args, **kwargs)
        finally:
            mark(f"< {name}")

    setattr(module, name, wrapper)


def main() -> None:
    mark("python up")
    import harness.cli as cli
    from harness.judgement import verdicts
    from harness.measurement import meters, procs, runner
    from harness.measurement.backends import process
    from harness.measurement.nvml import Nvml
    from harness.reporting import aggregate
    mark("harness imported")
    for module, name in [(runner, "run_cell"), (runner, "_await_exit"), (procs, "let_helpers_end"),
                         (runner, "_still_running"), (runner, "_after_exit"), (verdicts, "judge"),
                         (aggregate, "write_reports")]:
        timed(module, name)
    timed(meters.TimelineSampler, "__exit__")
    original_open = Nvml.open.__func__

    def nvml_open(cls: type) -> Nvml:
        mark("> Nvml.open")
        try:
            return original_open(cls)
        finally:
            mark("< Nvml.open")

    Nvml.open = classmethod(nvml_open)  # type: ignore[method-assign,assignment]
    for cls in vars(process).values():
        if isinstance(cls, type) and hasattr(cls, "stop") and hasattr(cls, "lines"):
            timed(cls, "stop")
    sys.argv = ["harness", "repro", sys.argv[1], "--interpreter", sys.executable,
                "--results", sys.argv[2] if len(sys.argv) > 2 else "/tmp/trace-results"]
    try:
        cli.main()
    except SystemExit:
        pass
    mark("main returned")
    import json
    from pathlib import Path

    newest = max(Path(sys.argv[-1]).glob("*/*/repro__*.json"), key=lambda p: p.stat().st_mtime)
    record = json.loads(newest.read_text())
    MARKS.append((record["checkpoints"][0]["t"], "checkpoint start (agent)"))
    MARKS.append((record["checkpoints"][-1]["t"], "checkpoint end (agent)"))
    MARKS.append((record["pre_gpu"]["t"], "pre_gpu (agent)"))
    for t, what in sorted(MARKS):
        print(f"{t - T0:8.3f} {what}", file=sys.stderr)
    print(f"exit_s {record.get('exit_s')} duration_s {record['duration_s']}", file=sys.stderr)


if __name__ == "__main__":
    main()
