"""repro.md beside its table: loops (growth per iteration, long ones folded to fit a screen), what holds the
memory, and how a notebook ran."""
from __future__ import annotations

from harness.common.units import human_bytes
from harness.judgement import answer, growing, holders, loops, verdicts
from harness.model.leftover import GarbageCensus
from harness.model.record import CellRecord, Checkpoint


def loop_lines(record: CellRecord) -> list[str]:
    """Growth per iteration of every loop: first, last, slope; the checkpointed lines of one loop (the same
    iterations measured) said once together, at the line that grew most."""
    meter = verdicts.measured_meter(record)
    ran = record.get("loops") or {}
    lines = []
    own = loops.groups(record.get("checkpoints") or [], loops.FRAMEWORK)
    grows = growing.growing(record.get("checkpoints") or [])
    groups = loops.groups(record.get("checkpoints") or [], meter)
    for sites in one_loop(groups, ran):
        total = ran.get(sites[0], groups[sites[0]][-1][0])
        site = max(sites, key=lambda s: loops.trend(groups[s], meter, total).slope)
        points = groups[site]
        sampled = "" if len(points) == total else f", measured at {len(points)} of them (1-10, then every 10th, 100th, ...)"
        rate = loops.trend(points, meter, total)
        quoted = [f"`{s}`" for s in sites]
        named = (", ".join(quoted[:-1]) + " and " + quoted[-1] + " (one loop)") if len(quoted) > 1 else quoted[0]
        lines.append(f"- {named} ran {total} times{sampled}: {human_bytes(points[0][1])} at #{points[0][0]}, "
                     f"{human_bytes(points[-1][1])} at #{points[-1][0]}; {rate.text()} ({meter.replace('_', ' ')})")
        counted = loops.trend(own[site], loops.FRAMEWORK, total) if site in own else None
        if counted is not None and counted.growing and not rate.growing:  # the meter is blind to it here
            lines.append(f"  - the framework's own in-use count {counted.text()}: {human_bytes(own[site][0][1])} at "
                         f"#{own[site][0][0]}, {human_bytes(own[site][-1][1])} at #{own[site][-1][0]} (a pool mapped "
                         f"before the loop hides this from {meter.replace('_', ' ')})")
        if grows.get(site):
            lines.append("  - what grows with it: " + "; ".join(g.text() for g in grows[site][:3]))
    return lines


def one_loop(groups: dict[str, list[tuple[int, int]]], ran: dict[str, int]) -> list[list[str]]:
    """The looped sites by loop, in their order: sites run as often and measured at the same iterations are the
    checkpointed lines of one loop (``groups``: loops.groups' site -> [(iteration, value)])."""
    by_loop: dict[tuple[int, tuple[int, ...]], list[str]] = {}
    for site, points in groups.items():
        by_loop.setdefault((ran.get(site, points[-1][0]), tuple(n for n, _ in points)), []).append(site)
    return list(by_loop.values())


def folded_iterations(record: CellRecord) -> dict[int, str]:
    """A loop's iterations the table leaves out, so a long loop fits a screen: each looped site keeps
    its first and last iteration and the one that held the most; the others fold into one row
    (checkpoint index -> that row's text where it stands, '' where it is only left out)."""
    cps = record.get("checkpoints") or []
    meter = verdicts.measured_meter(record)
    by_site: dict[str, list[int]] = {}
    for index, cp in enumerate(cps):
        site, n = loops.site_of(cp["label"])
        if n is not None:
            by_site.setdefault(site, []).append(index)
    folded: dict[int, str] = {}
    iterations = {site: [(loops.site_of(cps[i]["label"])[1] or 0, 0) for i in indexes] for site, indexes in by_site.items()}
    for sites in one_loop(iterations, {}):
        indexes = sorted(i for site in sites for i in by_site[site])
        if len(by_site[sites[0]]) <= LOOP_ROWS:
            continue
        per_site = [by_site[site] for site in sites]
        worst = max(per_site, key=lambda found: max(loops.value_of(cps[i], meter) or 0 for i in found))
        top = max(worst, key=lambda i: loops.value_of(cps[i], meter) or 0)
        kept = {n for found in per_site for n in (found[0], found[-1])} | {i for found in per_site for i in found
                                                                            if _same_iteration(cps, i, top)}
        hidden = [i for i in indexes if i not in kept]
        if not hidden:
            continue
        first, last = (loops.site_of(cps[i]["label"])[1] for i in (hidden[0], hidden[-1]))
        for i in hidden:
            folded[i] = ""
        named = ", ".join(f"`{site}`" for site in sites)
        folded[hidden[0]] = (f"{len(hidden) // len(sites)} more measured iterations of {named} (#{first} .. #{last}): "
                             "every row in report.html, the growth per iteration below").replace("|", "\\|")
    return folded


def _same_iteration(cps: list[Checkpoint], index: int, other: int) -> bool:
    return loops.site_of(cps[index]["label"])[1] == loops.site_of(cps[other]["label"])[1]


CYCLES_SAID = 1 << 20  # cycles not yet collected whose freeing gave back less are not said
CYCLES_OBJECTS = 1000  # or more objects in cycles are said whatever freeing them gave back (a loop piling them up)
LOOP_ROWS = 4  # a looped site with more measured iterations than this is folded (folded_iterations)


def holder_lines(record: CellRecord) -> list[str]:
    """What holds the framework's memory after the cleanups: at the step that answers (else the last
    cleanup line where holders were found, else the script's end), each holder with its fix
    (judgement/holders.py)."""
    found = [cp for cp in record.get("checkpoints") or [] if cp.get("holders")]
    if not found:
        return []
    decisive = answer.decisive_step((record.get("verdicts") or {}).get("steps") or [])
    lines = [cp for cp in found if cp["label"] != "end"]  # a cleanup line's search, else what the script ended with
    at = next((cp for cp in lines if decisive and cp["label"] == decisive["label"]), (lines or found)[-1])
    said = holders.said_at(at)
    memory = "host memory" if (at.get("holders") or {}).get("device") == "cpu" else "memory"
    return ["", f"What holds the {memory} at `{at['label']}`:", *(f"- {line}" for line in said)] if said else []


def notebook_lines(record: CellRecord) -> list[str]:
    """How a notebook ran: its cells in one IPython shell, each cell that raised, the install lines skipped."""
    ran = record.get("notebook")
    if not ran:
        return []
    first, last = ran.get("cells") or ("?", "?")
    lines = [f"Cells {first}-{last} ran in order in one IPython {ran.get('ipython')} shell ({ran.get('origin')}), as a "
             "Jupyter kernel runs them: each cell's last value kept in `Out`, a failing cell's traceback kept, the next "
             "cell run."]
    for error in ran.get("errors") or []:
        lines.append(f"Cell {error['cell']} raised `{error['type']}: {str(error['message'])[:160]}` (shown as Jupyter "
                     "shows it; the cells after it ran).")
    skipped = ran.get("not_run") or []
    if skipped:
        lines.append("Not run, listed (the environment is made from pins): " + "; ".join(f"`{line}`" for line in skipped[:8])
                     + (f" and {len(skipped) - 8} more" if len(skipped) > 8 else "") + ".")
    return [*lines, ""]


def heap_lines(record: CellRecord) -> list[str]:
    """What of the host memory left at `end` was the C allocator's free heap and what reference cycles the collector
    had not yet freed (the judge's ``heap`` and ``garbage``, rules 24 and 26), what is not, and the cycles found."""
    end = next((s for s in (record.get("verdicts") or {}).get("steps") or [] if s.get("label") == "end"), None)
    heap, garbage, left = (end.get("heap"), end.get("garbage"), end.get("left")) if end else (None, None, None)
    census = ((record.get("heap_trim") or {}).get("garbage") or {})
    parts = [f"{human_bytes(heap)} was the C allocator's free heap (glibc's: `malloc_trim(0)`, called once the script "
             f"was done, gave it back to the OS)"] if heap else []
    parts += [f"{human_bytes(garbage)} was reference cycles Python's garbage collector had not yet freed"] if garbage else []
    rest = (left or 0) - (heap or 0) - (garbage or 0)
    others = "what the allocator could not give back" if end and end.get("meter") == "rss" else "the framework's pool"
    parts += [f"{human_bytes(rest)} is live objects and {others}"] if rest > 0 else []
    said = (heap or garbage) and left
    lines = ["", f"Of the {human_bytes(left or 0)} left at `end`, " + "; ".join(parts) + "."] if said else []
    return lines + cycles_lines(census)


def cycles_lines(census: GarbageCensus) -> list[str]:
    """The cycles the collector had not yet freed at `end` (agent/garbage.py), where freeing them gave back at
    least ``CYCLES_SAID`` or there are ``CYCLES_OBJECTS`` of them (what a loop piles up before a full collection):
    how many, what made them, what freeing them gave back and how."""
    freed, arrays = census.get("freed") or 0, census.get("arrays") or {}
    if freed < CYCLES_SAID and sum(arrays.values()) < CYCLES_SAID and (census.get("objects") or 0) < CYCLES_OBJECTS:
        return []
    by_package: dict[str, list[str]] = {}
    for name, count, _ in (census.get("libraries") or [])[:4]:
        package = str(name).split(".")[0]
        kind = f"{str(name).rsplit('.', 1)[-1]} ({count:,})"
        by_package.setdefault("the script" if package == "__main__" else package, []).append(kind)
    kinds = "; ".join(f"{package}'s {', '.join(kinds)}" for package, kinds in by_package.items())
    made = f", among them {kinds}" if kinds else ""
    held = ", ".join(f"{human_bytes(n)} of {name}'s arrays" for name, n in arrays.items() if n)
    gave = [f"they hold {held}"] if held else []
    gave += [f"freeing them (in a copy of the process) gave {human_bytes(freed)} of host memory back"] if freed else []
    return ["", f"At `end`, {census.get('objects', 0):,} objects were in reference cycles that Python's garbage collector "
            f"had not yet freed{made}; " + "; ".join(gave) + ". `gc.collect()` frees them, and the collector does on its "
            "own at its next full collection (once enough pile up)."]
