"""A column whose environment was never built ran nowhere: on a GPU run it is neither a CPU column nor
"not shown without a GPU" (tests/data/unbuilt-run: a jax 0.6.2 virtualenv pip could not build on an
H200, beside 0.5.3 that ran there)."""
from __future__ import annotations

from pathlib import Path

from harness.judgement import gpu_only
from harness.judgement.cell import read_judged
from harness.reporting import aggregate, matrix_md

RUN = Path(__file__).parents[1] / "data" / "unbuilt-run"
BUILT, UNBUILT = "jax[cuda12]==0.5.3", "jax[cuda12]==0.6.2"


def test_a_record_that_never_ran_is_not_called_measured_without_a_gpu() -> None:
    records, _ = read_judged(RUN)
    unbuilt = next(r for r in records if r["env"]["name"] == UNBUILT)
    assert unbuilt["status"] == "skipped" and not unbuilt.get("host")
    assert gpu_only.not_shown(unbuilt) == ""
    built = next(r for r in records if r["env"]["name"] == BUILT)
    assert gpu_only.not_shown(built) == ""  # measured on the GPU
    cpu_twin = {**built, "checkpoints": [{**cp, "readings": {"rss": (cp.get("readings") or {}).get("rss")}}
                                         for cp in built["checkpoints"]], "pre_gpu": None}
    assert "GPU memory" in gpu_only.not_shown(cpu_twin)  # the same cell with host memory only: not shown


def test_the_matrix_calls_the_unbuilt_column_not_built_and_lists_nothing_as_needing_a_gpu() -> None:
    matrix = aggregate.build_matrix(RUN)
    columns = matrix["columns"]
    assert columns[BUILT]["ran"] and not columns[UNBUILT]["ran"]
    assert matrix_md.column_header(UNBUILT, columns[UNBUILT]) == f"{UNBUILT}<br>not built"
    assert matrix_md.column_header(BUILT, columns[BUILT]).endswith("· H200")
    assert matrix_md.not_shown(matrix) == []
    assert "CPU" not in matrix_md.to_markdown(matrix).split("|---|")[0]


def test_the_atlas_puts_the_unbuilt_cell_on_the_runs_gpu_and_counts_no_run() -> None:
    from harness.judgement.claims import load_claims
    from harness.reporting.atlas import collect, grid
    from harness.reporting.atlas_answers import measured
    from harness.reporting.atlas_runs import reference_runs

    cells, _ = collect(reference_runs(RUN), load_claims())
    assert sorted(c.hardware for c in cells) == ["H200", "H200"]
    row = grid(cells)["jax/preallocation@platform_allocator"]
    assert sorted(row) == ["jax 0.5.3 · H200", "jax 0.6.2 · H200"]  # tried on the H200, not a "CPU" column
    assert all(len(measured(column)) == (0 if "0.6.2" in name else 1) for name, column in row.items())
