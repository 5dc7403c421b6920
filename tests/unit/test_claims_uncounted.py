"""A claim that tells the pool from live tensors needs the framework's own count: torch 1.0.1 measured by an
agent that knew no memory_cached() said "held by the process: 2.00 GiB" after del, which could be either,
and the claim "memory freed by del stays with the caching allocator" read contradicted."""
from __future__ import annotations

from typing import Any

from harness.judgement.claims import Claim, assess


def _cell(verdict: str, framework_left: int | None) -> dict[str, Any]:
    step = {"label": "after_del", "verdict": verdict, "meter": "nvml_process", "detail": "2.00 GiB not back",
            "framework_left": framework_left}
    return {"status": "ok", "steps": [step]}


def _outcome(expect: tuple[str, ...], verdict: str, framework_left: int | None) -> str:
    claim = Claim(id="c", says="s", seed="004", scenario="torch/del_no_empty_cache", step="after_del", expect=expect)
    cells = {"torch/del_no_empty_cache": {"torch==1.0.1": _cell(verdict, framework_left)}}
    return assess(claim, cells, ["torch==1.0.1"])["torch==1.0.1"]["outcome"]  # type: ignore[arg-type]


def test_held_without_a_framework_count_decides_no_claim_that_tells_pool_from_live() -> None:
    assert _outcome(("cached",), "held", None) == "untestable"
    assert _outcome(("held",), "held", None) == "untestable"
    assert _outcome(("cached",), "held", 2 << 30) == "contradicted"  # counted: live tensors, not the pool
    assert _outcome(("held",), "held", 2 << 30) == "confirmed"
    assert _outcome(("cached",), "cached", 0) == "confirmed"


def test_a_claim_that_memory_stays_is_decided_either_way() -> None:
    """"sess.close() does not release": held, cached or partial all show it, counted or not."""
    assert _outcome(("held", "cached", "partial"), "held", None) == "confirmed"
    assert _outcome(("released",), "held", None) == "contradicted"
