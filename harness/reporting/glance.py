"""What the landing view answers at a glance: did the driver (or, for host memory, the OS) get
the memory back (all / part / none / n/a), why not (the word), and at which step; per column,
which release ran where. Colour follows ``back`` only: "cached, 77.93 GiB left" and "held,
77.68 GiB left" are the same answer to the driver question, told apart by their words."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from harness.common.units import human_bytes

MEASURED = ("released", "cached", "held", "partial")
NO_GPU = "no GPU: host memory (RSS) only"
WORDS = {"released": "released", "cached": "cached in the pool", "held": "held by live objects",
         "partial": "partly held by live objects"}
RSS_WORDS = {"released": "released to the OS", "cached": "kept by the process's allocator", "held": "held by live objects",
             "partial": "partly held by live objects"}
LEGEND = {
    "all": "all back: everything the framework allocated was returned (what the runtime itself keeps until exit is stated)",
    "part": "part back: some was returned, the rest is where the word says (or it grew in a loop)",
    "none": "none back: the driver (or the OS, for host memory) got nothing back at this step",
    "n/a": "not applicable: the cell did not measure a cleanup (error, skipped, unsupported, no signal)",
}


def decisive_step(steps: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The step that answers the cleanup question: the last one measured (the state after every
    cleanup the scenario made); earlier steps are the drill-down's."""
    measured = [s for s in steps if s.get("verdict") in MEASURED]
    return measured[-1] if measured else None


def of_cell(cell: dict[str, Any]) -> dict[str, Any]:
    """back (all/part/none/n/a), the word, the step's label and what is left (never negative); a
    cell with a loop adds how the loop grew per iteration, or that it stayed flat within its noise."""
    found = _answer(cell)
    loop = cell.get("loop") if cell.get("status") == "ok" else None
    if loop:
        found["loop"] = {k: loop[k] for k in ("site", "slope", "noise", "growing", "state", "text")}
        if loop.get("growing") and found["back"] in ("all", "n/a"):  # a leak per iteration is never shown as fine
            found["back"] = "part"
    return found


def _answer(cell: dict[str, Any]) -> dict[str, Any]:
    if cell.get("status") != "ok":
        return {"back": "n/a", "word": str(cell.get("status")), "label": None, "left": None, "meter": None}
    step = decisive_step(cell.get("steps") or [])
    if step is None and cell.get("exit") in ("returned", "not-returned"):  # a scenario about exit itself
        back = "all" if cell["exit"] == "returned" else "none"
        return {"back": back, "word": "back at exit" if back == "all" else "not back at exit", "label": "after exit",
                "left": None, "meter": cell.get("exit_meter")}
    if step is None:
        word = "no signal" if any(s.get("verdict") == "no-signal" for s in cell.get("steps") or []) else "no cleanup step"
        return {"back": "n/a", "word": word, "label": None, "left": None, "meter": None}
    left, grown, tol = max(0, step.get("left") or 0), step.get("grown") or 0, step.get("tol") or 0
    verdict = step["verdict"]
    if verdict == "released":
        back = "all"
    else:
        back = "none" if left >= grown - tol else "part"
    word = WORDS[verdict] if step.get("meter") != "rss" else RSS_WORDS[verdict]
    if verdict in ("held", "partial") and step.get("framework_left") is None:
        # no framework view (TF 1.x, a script's peak): pool and live objects cannot be told apart
        word = "held by the process" if verdict == "held" else "partly held by the process"
    if verdict == "released":
        # released with more than the tolerance left: the framework holds nothing (no live bytes, an
        # empty pool), so the rest is the runtime's own (kernels, library handles) until exit
        runtime = step.get("runtime_growth") or (left if left > tol else 0)
        word += f"; the runtime keeps {human_bytes(runtime)}" if runtime else ""
        left = 0
    if step.get("elsewhere"):  # a process the script started holds it: the driver did not get that back
        word += f"; another process holds {human_bytes(step['elsewhere'])}"
        back = "part" if back == "all" else back
    return {"back": back, "word": word, "label": step.get("label"), "left": left, "meter": step.get("meter")}


def text(glance: dict[str, Any]) -> str:
    """A cell's answer in one phrase: the word, what is left where something is, how its loop grew."""
    return (str(glance["word"]) + (f", {human_bytes(glance['left'])} left" if glance.get("left") else "")
            + (f"; in the loop: {glance['loop']['text']}" if glance.get("loop") else ""))


def columns(records: list[dict[str, Any]], column: Callable[[dict[str, Any]], str]) -> dict[str, dict[str, Any]]:
    """Each column's release line: framework versions, Python, CUDA, GPU, from its records' facts."""
    out: dict[str, dict[str, Any]] = {}
    for record in records:
        facts, host = record.get("facts") or {}, record.get("host") or {}
        seen = out.setdefault(column(record), {"frameworks": {}, "python": None, "cuda": None, "gpu": None, "driver": None})
        for name, version in (facts.get("frameworks") or {}).items():
            if name != "numpy":
                seen["frameworks"].setdefault(name, version)
        seen["python"] = seen["python"] or facts.get("python")
        seen["cuda"] = seen["cuda"] or facts.get("cuda")
        seen["gpu"] = seen["gpu"] or (host.get("gpu") or {}).get("name")
        seen["driver"] = seen["driver"] or host.get("driver")
    return out


def machine(records: list[dict[str, Any]]) -> str:
    """The machine the run measured, for the top of the page."""
    gpus = sorted({str(((r.get("host") or {}).get("gpu") or {}).get("name")) for r in records
                   if ((r.get("host") or {}).get("gpu") or {}).get("name")})
    drivers = sorted({str((r.get("host") or {}).get("driver")) for r in records if (r.get("host") or {}).get("driver")})
    if not gpus:
        return NO_GPU
    return ", ".join(gpus) + (f"; NVIDIA driver {', '.join(drivers)}" if drivers else "")
