"""Claims judged on real records: the H200 reference (GPU) and the rules for untestable cells."""
from __future__ import annotations

import copy
from pathlib import Path

from harness.judgement import claims
from harness.reporting import aggregate

REFERENCE = Path(__file__).resolve().parents[2] / "matrix" / "reference" / "h200-580.159.04"


def _outcomes(matrix: dict) -> dict[str, dict[str, str]]:
    return {c["id"]: {env: r["outcome"] for env, r in c["results"].items()} for c in matrix["claims"]}


def test_every_claim_loads_and_names_a_known_scenario_and_seed() -> None:
    from harness.running import catalogue

    names = {s.name for s in catalogue.discover()}
    seeds = {"000_1c2752142478237e.txt", "001_aed2418fb12c43dd.txt", "002_c1b13a36cfe93241.txt",
             "003_2d2cfc7532446a01.txt", "004_be17292fde94c561.txt"}
    loaded = claims.load_claims()
    assert len(loaded) >= 15
    for claim in loaded:
        assert claim.scenario in names, claim.id
        assert claim.seed in seeds or "-docs:" in claim.seed, claim.id
        if claim.compare:
            assert claim.compare["other"] in names, claim.id


# What the H200 reference (host-python3: torch, JAX, CuPy) settles, claim by claim. TF claims name
# TF environments, so the host's Python claims nothing for them.
H200_OUTCOMES = {
    "empty-cache-after-del-frees": "confirmed",
    "del-alone-keeps-cache": "confirmed",
    "graph-keeps-tensors": "confirmed",
    "cycle-needs-gc": "confirmed",
    "child-process-frees": "confirmed",
    # the folklore that a plain exit may keep memory: the driver got everything back here, which does
    # not show it, and cannot contradict a claim of what can happen ("does not always")
    "exit-may-not-release": "not reproduced",
    "tf18-close-keeps": None,
    # with cuBLAS loaded before `ready`, the DataLoader cleanup comes back to the floor
    "dataloader-cleanup-frees": "confirmed",
    "jax-preallocates-75": "confirmed",
    "jax-default-keeps": "confirmed",
    # the platform allocator frees the array; the ~550 MiB that stays is the runtime (CUDA
    # context and libraries, taken at the first touch), not a leak
    "jax-platform-allocator-frees": "confirmed",
    "cupy-pool-keeps": "confirmed",
    "cupy-free-all-blocks-frees": "confirmed",
    "cupy-pinned-free-all-blocks-frees": "confirmed",
}


def test_torch_jax_and_cupy_claims_on_the_h200_reference() -> None:
    outcomes = _outcomes(aggregate.build_matrix(REFERENCE))
    for claim, outcome in H200_OUTCOMES.items():
        assert outcomes[claim] == ({"host-python3": outcome} if outcome else {}), claim


def test_rss_only_cells_leave_gpu_claims_untestable() -> None:
    matrix = aggregate.build_matrix(REFERENCE)
    cells = copy.deepcopy(matrix["cells"])
    for step in cells["torch/del_gc_empty_cache"]["host-python3"]["steps"]:
        step["meter"] = "rss"
    claim = next(c for c in claims.load_claims() if c.id == "empty-cache-after-del-frees")
    result = claims.assess(claim, cells, ["host-python3"])["host-python3"]
    assert result["outcome"] == "untestable" and "rss" in result["why"]


def test_a_failed_cell_is_untestable_not_contradicted() -> None:
    matrix = aggregate.build_matrix(REFERENCE)
    cells = copy.deepcopy(matrix["cells"])
    cells["torch/reference_cycle"]["host-python3"]["status"] = "error"
    claim = next(c for c in claims.load_claims() if c.id == "cycle-needs-gc")
    assert claims.assess(claim, cells, ["host-python3"])["host-python3"]["outcome"] == "untestable"


def test_a_claim_of_what_can_happen_is_not_reproduced_never_contradicted() -> None:
    """'does not always' is not contradicted by a run where it did: the same measured verdict
    contradicts a claim of what always happens."""
    from dataclasses import replace

    claim = next(c for c in claims.load_claims() if c.id == "exit-may-not-release")
    assert claim.possible
    cell = {"status": "ok", "exit": "returned", "exit_meter": "nvml_device", "steps": []}
    assert claims._judge_step(claim, cell)["outcome"] == "not reproduced"
    assert claims._judge_step(replace(claim, possible=False), cell)["outcome"] == "contradicted"
    assert claims._judge_step(claim, {**cell, "exit": "not-returned"})["outcome"] == "confirmed"


def test_a_comparison_is_judged_by_the_claims_own_factor_and_says_how_far_apart() -> None:
    """Twofold by default; "can significantly reduce" (factor 1.25, a possible claim) is shown by a fifth less of an
    exact count and not by the 8% TF 2.7-2.21 show, which then has not reproduced it (never "contradicted" for a
    reduction)."""
    from dataclasses import replace

    claim = next(c for c in claims.load_claims() if c.id == "tf-function-less-memory")
    assert claim.compare is not None and claim.possible

    def cells(mine: int, theirs: int) -> tuple[dict, dict]:
        return ({"status": "ok", "framework_levels": {"peak": mine}}, {"status": "ok", "framework_levels": {"peak": theirs}})

    eight = claims._judge_compare(claim, *cells(3_520, 3_810))
    assert eight["outcome"] == "not reproduced" and "8% less" in eight["why"]
    fifth = claims._judge_compare(claim, *cells(3_000, 3_810))
    assert fifth["outcome"] == "confirmed" and "21% less" in fifth["why"]
    twofold = replace(claim, compare={k: v for k, v in claim.compare.items() if k != "factor"}, possible=False)
    assert claims._judge_compare(twofold, *cells(3_520, 3_810))["outcome"] == "contradicted"
    assert "1/271 of it" in claims._judge_compare(twofold, *cells(522, 141_355))["why"]


def test_a_claims_runs_are_told_in_one_phrase() -> None:
    assert claims.tally(["confirmed"] * 14) == "confirmed in 14 of 14 runs"
    assert claims.tally(["confirmed", "not reproduced", "confirmed"]) == "confirmed in 2 and not reproduced in 1 of 3 runs"
    assert claims.tally(["contradicted"]) == "contradicted in 1 of 1 run"
    assert claims.tally([]) == "no run decides it yet"
