"""The seeds' claims, read from matrix/claims.toml, and what the matrix says of each.

A claim names a scenario and either a step whose verdict settles it (``expect``) or a
comparison with another scenario (``compare``). Per environment the outcome is confirmed,
contradicted, or untestable (the cell did not run, did not finish, measured no signal, or the
claim is about GPU memory and the cell had no NVML reading).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from typing_extensions import Required, TypedDict

from harness import frameworks
from harness.common import tomlfile
from harness.common.errors import UsageError, suggest
from harness.common.pinned import exact
from harness.common.units import human_bytes
from harness.definitions.config import data_root, load_environments
from harness.model.judged import CellSummary, ClaimResult
from harness.model.record import Status

MEASURED = {"released", "cached", "held", "partial", "returned", "not-returned"}
GPU_METERS = {"nvml_process", "nvml_device"}


class ClaimTable(TypedDict, total=False):
    """A [[claim]] of claims.toml, as written (its keys checked by load_claims against KNOWN)."""

    id: Required[str]
    says: Required[str]
    seed: Required[str]
    scenario: Required[str]
    step: str
    expect: list[str]
    envs: list[str]
    gpu: bool
    compare: dict[str, str]
    possible: bool


KNOWN = ClaimTable.__required_keys__ | ClaimTable.__optional_keys__  # (postponed annotations: all read as optional)


@dataclass(frozen=True, kw_only=True)
class Claim:
    id: str
    says: str
    seed: str
    scenario: str
    step: str = ""
    expect: tuple[str, ...] = ()
    envs: tuple[str, ...] | None = None
    gpu: bool = True
    compare: dict[str, str] | None = None
    possible: bool = False  # says something can happen: a run without it has not reproduced it, never contradicted it


def load_claims(path: Path | None = None) -> list[Claim]:
    """The seed articles' claims (matrix/claims.toml in the checkout, or the installed copy)."""
    path = path or data_root() / "matrix" / "claims.toml"
    data = tomlfile.read(path, "claims")
    claims = []
    for raw in data.get("claim", []):
        table = cast(ClaimTable, raw)
        for key in table:
            if key not in KNOWN:
                raise UsageError(f"{path.name}: claim {table.get('id', '?')}: unknown key {key!r}{suggest(key, sorted(KNOWN))}")
        missing = [key for key in ("id", "says", "seed", "scenario") if key not in table]  # ClaimTable's Required keys
        if missing:
            raise UsageError(f"{path.name}: claim {table.get('id', '?')} needs {', '.join(missing)}")
        if not table.get("compare") and not (table.get("step") and table.get("expect")):
            raise UsageError(f"{path.name}: claim {table.get('id', '?')} needs step + expect, or compare")
        claims.append(Claim(
            id=table["id"], says=table["says"], seed=table["seed"], scenario=table["scenario"],
            step=table.get("step", ""), expect=tuple(table.get("expect", ())),
            envs=tuple(table["envs"]) if "envs" in table else None, gpu=bool(table.get("gpu", True)),
            compare=dict(table["compare"]) if "compare" in table else None,
            possible=bool(table.get("possible", False)),
        ))
    return claims


def _not_shown(claim: Claim) -> str:
    """A measured run that does not show what the claim says: it contradicts a claim of what always
    happens, and only fails to reproduce one of what can happen."""
    return "not reproduced" if claim.possible else "contradicted"


def _untestable(why: str, observed: str | None = None) -> ClaimResult:
    return {"outcome": "untestable", "why": why, "observed": observed}


def _judge_step(claim: Claim, cell: CellSummary) -> ClaimResult:
    detail, counted = "", True  # counted: the framework's own count was read (held and cached told apart)
    if claim.step == "exit":
        observed, meter = cell.get("exit"), cell.get("exit_meter")
    else:
        step = next((s for s in cell.get("steps", []) if s["label"] == claim.step), None)
        if step is None:
            return _untestable(f"no checkpoint {claim.step!r} in this cell")
        observed, meter = step["verdict"], step.get("meter")
        detail, counted = step.get("detail") or "", step.get("framework_left") is not None
    if claim.gpu and meter not in GPU_METERS:
        return _untestable(f"a GPU claim, but this cell was measured on {meter or 'no meter'}", observed)
    if observed not in MEASURED:
        return _untestable(f"verdict {observed}", observed)
    if observed == "held" and not counted and len({"cached", "held"} & set(claim.expect)) == 1:
        # a claim that tells the pool from live tensors, and "held" without the framework's own count to
        # tell them (torch 1.0.1 read by an agent that knew no memory_cached())
        return _untestable(f"{claim.step}: held by the process, and the framework reported no count to tell "
                           "its pool from its live tensors", observed)
    outcome = "confirmed" if observed in claim.expect else _not_shown(claim)
    why = f"{claim.step}: {observed}" + (f": {detail}" if detail else "")
    return {"outcome": outcome, "why": why, "observed": observed}


def _judge_compare(claim: Claim, cell: CellSummary, other: CellSummary | None) -> ClaimResult:
    assert claim.compare is not None
    label, want = claim.compare["label"], claim.compare.get("expect", "less")
    other_label = claim.compare.get("other_label", label)  # the same scenario's earlier step: what one step gave back
    if other is None or other.get("status") != Status.OK:
        return _untestable(f"the control {claim.compare['other']} has no result here")
    if claim.compare.get("meter") == "framework":  # the framework's own count sees what NVML cannot
        # a step against an earlier one: what is in use at each (TF's count also keeps its peak so far)
        apart = other_label != label
        mine = ((apart and cell.get("framework_in_use")) or cell.get("framework_levels") or {}).get(label)
        theirs = ((apart and other.get("framework_in_use")) or other.get("framework_levels") or {}).get(other_label)
        if mine is None or theirs is None:
            return _untestable(f"the framework reports no memory count at {label!r}")
        meter: str | None = "the framework's own count"
    else:
        mine, theirs = cell.get("levels", {}).get(label), other.get("levels", {}).get(other_label)
        meter = cell.get("meter")
        if mine is None or theirs is None:
            return _untestable(f"no reading at {label!r} (skipped without a GPU?)")
        if claim.gpu and meter not in GPU_METERS:
            return _untestable(f"a GPU claim, but this cell was measured on {meter}")
        if any(label in c.get("blind_labels", []) for c in (cell, other)):
            return _untestable(f"NVML cannot tell the two apart at {label!r}: the pool was mapped at the first touch "
                               f"({mine} vs {theirs} bytes)")
    # how much apart the two must be: twofold by default (a clear difference on any meter), or the claim's own
    # factor where its words ask less ("significantly reduces", read on the framework's exact count)
    factor = float(claim.compare.get("factor", 2))
    shown = mine * factor <= theirs if want == "less" else mine >= theirs * factor
    outcome = "confirmed" if shown else _not_shown(claim)
    against = f" at {other_label}" if other_label != label else ""
    return {"outcome": outcome, "why": f"{label}: {human_bytes(mine)} vs {human_bytes(theirs)}{against}{_apart(mine, theirs)} "
                                       f"({meter})", "observed": None}


def tally(outcomes: list[str]) -> str:
    """A claim's runs in one phrase: "confirmed in 14 of 14 runs", "confirmed in 3 and not reproduced in 2
    of 5 runs", or "no run decides it yet"."""
    if not outcomes:
        return "no run decides it yet"
    counts = [(word, outcomes.count(word)) for word in ("confirmed", "contradicted", "not reproduced") if word in outcomes]
    parts = [f"{word} in {n}" for word, n in counts]
    said = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"{said} of {len(outcomes)} run{'s' if len(outcomes) > 1 else ''}"


def _apart(mine: int, theirs: int) -> str:
    """', 8% less', ', 1/271 of it', ', 3.1 times as much': how far apart the two readings are."""
    if mine == theirs:
        return ", the same"
    if not mine or not theirs:
        return ""
    if mine * 2 <= theirs:
        return f", 1/{theirs / mine:.0f} of it"
    if mine < theirs:
        return f", {100 * (theirs - mine) / theirs:.0f}% less"
    times = mine / theirs
    return f", {times:.1f} times as much" if times < 10 else f", {times:.0f} times as much"


def _pinned_framework(package: str) -> tuple[str, str] | None:
    """``tensorflow-cpu==2.7.4`` -> ("tensorflow", "2.7.4"); a pin of anything else -> None."""
    for req, release in exact(package.replace(" ", "")):
        if found := frameworks.of_distribution(req.name):
            return found.name, release
    return None


@functools.lru_cache(maxsize=1)
def pinned_releases() -> dict[str, frozenset[tuple[str, str]]]:
    """Each defined environment's framework releases, from its pins (every variant):
    tf2.7 -> {("tensorflow", "2.7.4")}."""
    releases: dict[str, set[tuple[str, str]]] = {}
    for name, env in load_environments().items():
        for variant in env.variants.values():
            for package in variant.packages:
                found = _pinned_framework(package)
                if found:
                    releases.setdefault(name, set()).add(found)
    return {name: frozenset(found) for name, found in releases.items()}


def standing_for(claim: Claim, env: str, cell: CellSummary | None) -> str | None:
    """The claimed environment this cell stands for: its own name, or, for an environment of
    another kind (an interpreter, an image), the claimed one whose pinned release it ran
    (host-tf-2.21.0 ran tensorflow 2.21.0, as tf-current pins)."""
    if claim.envs is None or env in claim.envs:
        return env
    ran = {(name, str(version).split("+")[0]) for name, version in ((cell.get("framework") if cell else None) or {}).items()}
    if not ran:
        return None  # (without reading environments.toml: a repro's report does not need it)
    return next((named for named in claim.envs if pinned_releases().get(named, frozenset()) & ran), None)


def assess(claim: Claim, cells: dict[str, dict[str, CellSummary]], envs: list[str]) -> dict[str, ClaimResult]:
    """The claim's outcome in each environment of the matrix where it is made."""
    row = cells.get(claim.scenario, {})
    results: dict[str, ClaimResult] = {}
    for env in envs:
        cell = row.get(env)
        standing = standing_for(claim, env, cell)
        if standing is None:
            continue
        if cell is None:
            if claim.envs is not None:
                results[env] = _untestable("the scenario did not run in this env")
            continue
        if cell.get("status") != Status.OK:
            results[env] = _untestable(f"cell status {cell.get('status')}")
        elif claim.compare:
            results[env] = _judge_compare(claim, cell, cells.get(claim.compare["other"], {}).get(env))
        else:
            results[env] = _judge_step(claim, cell)
        if standing != env:
            results[env]["why"] = f"as {standing}, the same release: {results[env]['why']}"
    return results
