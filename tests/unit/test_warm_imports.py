"""What only the end of a run needs is not imported before its first cell starts, and is imported on a thread while
that cell runs (cli/warm.py): a repro's time before and after the script is the CLI's own (bench_repro_overhead)."""
from __future__ import annotations

import json
import subprocess
import sys

from helpers import ROOT

PROBE = """import json, sys, threading
import harness.cli.repro, harness.running.matrix, harness.measurement.runner
before = sorted(m for m in sys.modules if m.startswith(("harness.reporting", "harness.judgement.verdicts", "jinja2",
                                                         "harness.running.issue", "harness.environments.gpu_fit",
                                                         "harness.common.pinned", "harness.measurement.backends.docker")))
from harness.cli import warm
warm.after_cells()
next(t for t in threading.enumerate() if t.name == "warm-imports").join(30)
from harness.reporting import templates
after = [m for m in warm.AFTER_CELLS if m not in sys.modules]
print(json.dumps({"before": before, "missing_after": after, "compiled": templates._environment.cache_info().currsize}))
"""


def test_the_end_of_a_run_loads_while_its_first_cell_runs() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, cwd=ROOT, check=True)
    said = json.loads(done.stdout)
    assert said["before"] == [], said["before"]  # none before the cell: judge, reports, Jinja2, readers, wheels, Docker
    assert said["missing_after"] == [] and said["compiled"] == 1, said
