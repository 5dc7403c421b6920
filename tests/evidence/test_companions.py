"""What came with each release (Keras, numpy, jaxlib...) is named beside it: a turn in a sweep or a
bisect can be told from a companion's."""
from __future__ import annotations

import json
from pathlib import Path

from helpers import reference_matrix
from packaging.version import Version

from harness.judgement import criteria
from harness.reporting import sweeps
from harness.running import bisection

SWEEP = Path(__file__).resolve().parents[2] / "matrix" / "reference" / "sweeps" / "cpu-tensorflow-2.12-2.21"


def test_a_sweep_names_each_releases_companions_where_they_change() -> None:
    (folder,) = [p.parent for p in SWEEP.glob("*/sweep.json")]
    summary = json.loads((folder / "sweep.json").read_text())
    sweeps.judge(summary, reference_matrix(folder))
    assert summary["companions"]["2.16.2"]["keras"] == "3.15.1" and "tensorflow" not in summary["companions"]["2.16.2"]
    line = next(line for line in sweeps.markdown(summary).splitlines() if line.startswith("Companions"))
    assert "keras 2.12.0 (2.12.1), 2.13.1 (2.13.1), 2.14.0 (2.14.1), 2.15.0 (2.15.1), 3.15.1 (2.16.2 .. 2.21.0)" in line
    assert "jax 0.4.38 (2.12.1), not imported (2.13.1 .. 2.21.0)" in line  # present in one release only: said so


def test_a_bisects_table_names_what_came_with_each_release() -> None:
    outcome = bisection.Outcome([Version("2.15.1"), Version("2.16.2")],
                                steps=[bisection.Step(Version("2.15.1"), criteria.Measure(0, "rss", "x"), "ok", False),
                                       bisection.Step(Version("2.16.2"), criteria.Measure(2**30, "rss", "x"), "ok", True)])
    table = bisection.table(outcome, criteria.Criterion(), {}, {Version("2.15.1"): {"keras": "2.15.0"},
                                                                 Version("2.16.2"): {"keras": "3.15.1", "numpy": "1.26.4"}})
    assert table.splitlines()[0].endswith("| with |")
    assert "| 2.16.2 |" in table and table.splitlines()[-1].endswith("| keras 3.15.1, numpy 1.26.4 |")
