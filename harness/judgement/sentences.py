"""Each step's verdict in words: where the memory is, with the figures (judged in verdicts.py)."""
from __future__ import annotations

from typing import Any

from harness.common.units import human_bytes
from harness.judgement import attribution
from harness.model.judged import Step
from harness.model.processes import GpuProcess
from harness.model.record import Checkpoint


def _framework_names(cp: Checkpoint) -> str:
    return "/".join(sorted(cp.get("view") or {})) or "the framework"


def pinned(cp: Checkpoint, parts: dict[str, int] | None) -> str:
    """After torch's ``empty_cache()``, why its pool still holds memory: empty_cache returns only
    segments with no live block in them, so live blocks pin the rest (torch's memory_stats says
    how many segments and how much of them is free splits). "" where that is not the case."""
    torch = (cp.get("view") or {}).get("torch") or {}
    if "empty_cache" not in str(cp.get("label")) or not parts or not parts["pool"] or not torch.get("segments"):
        return ""
    split = f", {human_bytes(torch['inactive_split'])} of them free splits" if torch.get("inactive_split") else ""
    return (f"; `empty_cache()` could not return the {human_bytes(parts['pool'])}: {human_bytes(torch.get('in_use'))} of "
            f"live blocks pin the {torch['segments']} segment{'s' if torch['segments'] != 1 else ''} torch still holds "
            f"({human_bytes(torch.get('reserved'))} reserved{split}); it returns only segments with no live block")


def returned_late(cp: Checkpoint, parts: dict[str, int] | None) -> str:
    """accelerate's ``x = release_memory(x)`` empties the cache inside the call, while the caller's
    own names still hold the objects; they die only when the names are rebound, after it."""
    if "release_memory(" not in str(cp.get("label")) or not parts or not parts["pool"]:
        return ""
    return ("; release_memory() called empty_cache() while the caller's names still held the objects, which were "
            "freed only when its result was assigned: call torch.cuda.empty_cache() after it to return the pool")


def detail(verdict: str, left: int, fw_now: int | None, floor: Any, cp: Checkpoint,
            parts: dict[str, int] | None = None, others: list[GpuProcess] | None = None, meter: str = "") -> str:
    """The step's answer in words: where the memory is, with the figures (host memory in host words)."""
    who = _framework_names(cp)
    back = "back to the OS" if meter == "rss" else "back to the driver"
    notes = []
    if floor is not None and floor.premapped:
        notes.append("with the CUDA context and libraries: the pool was mapped at the first touch")
    if fw_now is not None and not parts:
        notes.append(f"{who} in use: {human_bytes(fw_now)}")
    why = f" ({'; '.join(notes)})" if notes else ""
    growth = (f"; {human_bytes(parts['runtime_growth'])} more than at the first touch is the CUDA runtime's own "
              "(kernels and library handles loaded on first use), returned only at exit"
              if parts and parts["runtime_growth"] else "")
    elsewhere = f"; held by another process the script started: {attribution.named(others)}" if others else ""
    if verdict == "released":
        kept = f"; the runtime keeps {human_bytes(floor.runtime_cost)} until exit" if floor and floor.runtime_cost else ""
        whose = f"everything {who} allocated is {back}" if parts else back
        return f"{whose}{kept}{growth}{elsewhere}"
    if parts:
        counted = [f"{human_bytes(parts['pool'])} cached in {who}'s allocator pool" if parts["pool"] else "",
                   f"{human_bytes(parts['live'])} still live in {who}" if parts["live"] else ""]
        return "; ".join(c for c in counted if c) + pinned(cp, parts) + returned_late(cp, parts) + growth + elsewhere
    if verdict == "cached":
        return f"{human_bytes(left)} still held by {who}'s allocator{why}{elsewhere}"
    if verdict in ("held", "partial"):
        return f"{human_bytes(left)} not {back}{why}{elsewhere}"
    return elsewhere.lstrip("; ")


def step_word(step: Step) -> str:
    """A step's verdict as every output shows it: a step that means nothing here is "n/a", with why; a
    reading at the edge of a line the judge draws says "borderline", with its figures."""
    if step.get("verdict") == "skipped":  # the judge's word (a record of older rules: made from its reason)
        return str(step.get("word") or (f"n/a: {step['reason']}" if step.get("reason") else "n/a"))
    return str(step.get("word") or step.get("verdict") or "")  # "borderline: ..." where the judge said so
