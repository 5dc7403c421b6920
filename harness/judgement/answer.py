"""The one answer a judged cell gives: did the memory come back (its colour), why not (its word),
and how much, split into what the framework still uses (live), what its pool keeps (pool), what
the CUDA runtime keeps until exit (runtime: never a cleanup failure) and what no meter explains.

Every output renders this answer (terminal, matrix.md, report.html, repro.md, the atlas, sweep.md):
none decides a colour or a word of its own. It reads the cell's judged steps (verdicts.py), so a
re-render with today's rules gives today's answer; ``RULES_VERSION`` there names the rules.

Colour follows ``back`` only: "cached" and "held" are the same answer to the driver question,
told apart by their words. A step nobody could measure (no signal) is grey, never "back at exit".
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from enum import Enum

from harness.common.units import human_bytes
from harness.judgement.loops import LEAKING
from harness.judgement.ranks import RANK_PREFIX
from harness.model.judged import CellSummary, Glance, LoopLine, Step
from harness.model.record import ErrorInfo, Status


class Colour(str, Enum):
    GREEN = "green"
    AMBER = "amber"
    RED = "red"
    GREY = "grey"
    BLUE = "blue"


COLOUR = {"all": Colour.GREEN, "part": Colour.AMBER, "none": Colour.RED, "n/a": Colour.GREY,
          "borderline": Colour.BLUE}
MEASURED = ("released", "cached", "held", "partial")
WORDS = {"released": "released", "cached": "cached in the pool", "held": "held by live objects",
         "partial": "partly held by live objects"}
RSS_WORDS = {"released": "released to the OS", "cached": "kept by the process's allocator", "held": "held by live objects",
             "partial": "partly held by live objects"}
# which part of what is left each word already names (Amounts.phrase gives it as a bare amount)
HEAP_WORD = "kept by the C allocator as free heap"  # host memory glibc keeps for reuse: malloc_trim(0) gives it back
GARBAGE_WORD = "kept by reference cycles not yet collected"  # gc.collect() frees them; the collector does in time
SAID = {"cached in the pool": "pool", "kept by the process's allocator": "pool", HEAP_WORD: "heap", GARBAGE_WORD: "garbage",
        "held by live objects": "live", "held by live objects and the process": "live",
        "partly held by live objects": "live", "held by the process": "process", "partly held by the process": "process"}
LEGEND = {
    "all": "all back: everything the framework allocated was returned (what the runtime itself keeps until exit is stated)",
    "part": "part back: some was returned, the rest is where the word says (or it grew in a loop)",
    "none": "none back: the driver (or the OS, for host memory) got nothing back at this step",
    "n/a": "not applicable: the cell did not measure a cleanup (error, skipped, unsupported, no signal)",
    "borderline": "borderline: a reading within the meter's noise of a line the judge draws (what it grew near the "
                  "smallest change judged, or what is left near the release line): either side run to run, so not "
                  "judged; more memory in the scenario, or a meter that sees less noise, decides it",
}
GOES = {"heap": "malloc_trim(0) gives it back", "garbage": "gc.collect() frees it"}  # how what the word names goes
SHORT = {back: said.split(":", 1)[0] for back, said in LEGEND.items()}  # "all back", ..., "not applicable"


@dataclass(frozen=True, kw_only=True)
class Amounts:
    """Bytes left at the deciding step, by where they are; None where no meter can tell."""

    live: int | None = None  # the framework still counts it
    pool: int | None = None  # its allocator keeps it, free for the framework, not for the driver
    runtime: int | None = None  # the CUDA runtime's growth since the first touch: returned only at exit
    unexplained: int | None = None  # on the meter, in none of the above (or pool and runtime, where they cannot be told apart)
    heap: int | None = None  # host memory: the C allocator's free heap (glibc's), which malloc_trim(0) gives back
    garbage: int | None = None  # host memory: reference cycles Python's collector had not yet freed
    pool_and_runtime: bool = False  # a pool mapped at the first touch: pool and runtime are one figure (``pool``)

    def phrase(self, said: str | None) -> str:
        """'45.70 MiB live, 138.08 GiB in the pool ...; the runtime keeps 224.00 MiB until exit': the
        parts that are there, the one the word names (``said``) first, then by size; that one as a bare
        amount when it is the only one."""
        pool = "in the pool with the runtime's own (mapped at the first touch)" if self.pool_and_runtime else "in the pool"
        named = [(n, kind, name) for n, kind, name in ((self.live, "live", "live"), (self.pool, "pool", pool),
                                                       (self.unexplained, "process", "held by the process"),
                                                       (self.heap, "heap", "the C allocator's free heap"),
                                                       (self.garbage, "garbage", "in cycles not yet collected")) if n]
        named.sort(key=lambda part: (part[1] != said, -part[0]))  # what the word names first, then by size
        if said in GOES and named and named[0][1] == said:  # the word names it: its amount bare, and how it goes
            core = ", ".join([f"{human_bytes(named[0][0])} ({GOES[said]})",
                              *(f"{human_bytes(n)} {name}" for n, _, name in named[1:])])
        elif len(named) == 1 and named[0][1] == said:
            core = human_bytes(named[0][0]) + (f" {pool[len('in the pool '):]}" if said == "pool" and self.pool_and_runtime
                                               else "")
        else:
            core = ", ".join(f"{human_bytes(n)} {name}" for n, _, name in named)
        runtime = f"the runtime keeps {human_bytes(self.runtime)} until exit" if self.runtime else ""
        return "; ".join(p for p in (core, runtime) if p)


@dataclass(frozen=True, kw_only=True)
class Answer:
    back: str  # all / part / none / n/a
    word: str
    label: str | None = None  # the deciding step
    left: int | None = None  # what the cleanup did not give back: live + pool + unexplained (never the runtime's)
    meter: str | None = None
    amounts: Amounts | None = None
    loop: LoopLine | None = None
    gpus: tuple[str, ...] = ()  # what several GPUs showed (judgement/multigpu.py), each a phrase
    caveats: tuple[str, ...] = ()  # how it ran that the answer depends on (failures.caveats)
    verdict: str = ""  # the deciding step's verdict, or the cell's status: the one word a page keys on

    @property
    def colour(self) -> Colour:
        return COLOUR[self.back]

    @property
    def text(self) -> str:
        """The answer in one phrase: the word, the amounts where something is left, how its loop grew."""
        phrase = self.amounts.phrase(SAID.get(self.word.split(";")[0])) if self.amounts and self.left else ""
        amount = f": {phrase}" if phrase else (f", {human_bytes(self.left)} left" if self.left else "")
        return (self.word + ("" if "borderline" in self.word else amount)  # a borderline word holds its figures
                + (f"; in the loop: {self.loop['text']}" if self.loop else "")
                + "".join(f"; {finding}" for finding in self.gpus + self.caveats))

    def as_dict(self) -> Glance:
        """As matrix.json keeps it (``glance``): the fields, the colour and the phrase every output shows."""
        out: Glance = {"back": self.back, "colour": self.colour.value, "word": self.word, "text": self.text,
                       "verdict": self.verdict, "label": self.label, "left": self.left, "meter": self.meter,
                       "amounts": {k: v for k, v in asdict(self.amounts).items() if v} or None if self.amounts else None}
        if self.loop is not None:  # matrix.json: a cell without a loop has no ``loop``
            out["loop"] = self.loop
        if self.gpus:  # only where there is one
            out["gpus"] = list(self.gpus)
        if self.caveats:
            out["caveats"] = list(self.caveats)
        return out


def error_line(error: ErrorInfo | None) -> str:
    """A failed cell's cause in one line: the exception and the first line of its message
    ("RuntimeError: CUDA error: invalid device ordinal"), never a traceback's last line (torch ends
    its CUDA errors with a hint about TORCH_USE_CUDA_DSA)."""
    if not error:
        return ""
    lines = str(error.get("message") or "").strip().splitlines()
    if not lines:  # no message: the traceback's last line names the exception
        lines = str(error.get("traceback") or "").strip().splitlines()[-1:]
        return lines[0] if lines else str(error.get("type") or "")
    return f"{error.get('type')}: {lines[0]}" if error.get("type") else lines[0]


WORST_FIRST = ("held", "partial", "cached", "released")
NOT_SHOWN = "not shown without a GPU"  # the reason, once per scenario, beside the table (matrix_md.not_shown)


def decisive_step(steps: list[Step]) -> Step | None:
    """The step that answers the cleanup question: the last one measured (the state after every
    cleanup the scenario made); earlier steps are the drill-down's. A launched job's ranks each end
    with their own last step: the job's answer is the worst of them (the launcher's own last step
    comes after every rank has exited, which the after-exit answer tells)."""
    measured = [s for s in steps if s.get("verdict") in MEASURED]
    last_of_rank = {match.group(0): s for s in measured if (match := RANK_PREFIX.match(str(s.get("label"))))}
    if last_of_rank:
        return min(last_of_rank.values(), key=lambda s: (WORST_FIRST.index(s["verdict"]), -(s.get("left") or 0)))
    return measured[-1] if measured else None


def verdict_of(cell: CellSummary) -> str:
    """The one word a cell came to: its status where it did not run to its end, else its deciding step's
    verdict (the last one judged where none decides), else its exit's."""
    if cell.get("status") != Status.OK:
        return str(cell.get("status"))
    if cell.get("gpu_only"):  # no verdict on what this hardware cannot show
        return "n/a"
    steps = cell.get("steps") or []
    step = decisive_step(steps) or next((s for s in reversed(steps) if s.get("verdict") != "skipped"), None)
    return str(step["verdict"] if step else cell.get("exit") or "ok")


def of_cell(cell: CellSummary) -> Answer:
    """A judged cell's answer (cell.judge_cell's dict); a growing loop is never shown as fine."""
    found = replace(_answer(cell), verdict=verdict_of(cell))
    if cell.get("multigpu"):  # said beside the cleanup's answer, which it does not change
        found = replace(found, gpus=tuple(cell["multigpu"]))
    if cell.get("caveats") and cell.get("status") == Status.OK:
        found = replace(found, caveats=tuple(cell["caveats"]))
    loop = cell.get("loop") if cell.get("status") == Status.OK else None
    if not loop:
        return found
    # growth clear of its noise is a leak per iteration, however little it adds up to over the iterations run
    leaks = loop["growing"] or loop["state"] in LEAKING
    back = "part" if leaks and found.back in ("all", "n/a", "borderline") else found.back
    line = LoopLine(site=loop["site"], slope=loop["slope"], noise=loop["noise"], growing=loop["growing"],
                    state=loop["state"], text=loop["text"])
    return replace(found, back=back, loop=line)


def _answer(cell: CellSummary) -> Answer:
    if cell.get("status") != Status.OK:
        return Answer(back="n/a", word=str(cell.get("status")))
    if cell.get("gpu_only"):  # what it shows exists only on a GPU, and none was measured (gpu_only.py)
        return Answer(back="n/a", word=NOT_SHOWN)
    steps = cell.get("steps") or []
    last = next((s for s in reversed(steps) if s.get("verdict") != "skipped"), None)
    if last is not None and last.get("verdict") == "no-signal" and last.get("word"):  # its growth is borderline
        return Answer(back="borderline", word=str(last["word"]), label=last.get("label"), meter=last.get("meter"))
    step = decisive_step(steps)
    unmeasured = any(s.get("verdict") in ("no-signal", "unmeasured") for s in steps)
    if step is None and unmeasured:  # nothing to judge the cleanup on: grey, whatever the exit did
        said = next((s["word"] for s in steps if s.get("verdict") == "no-signal" and s.get("word")), None)
        return Answer(back="n/a", word=said or ("no signal" if any(s.get("verdict") == "no-signal" for s in steps)
                                                else "not measured"))
    if step is None and cell.get("exit") in ("returned", "not-returned"):  # a scenario about exit itself
        back = "all" if cell["exit"] == "returned" else "none"
        return Answer(back=back, word="back at exit" if back == "all" else "not back at exit", label="after exit",
                      meter=cell.get("exit_meter"))
    if step is None:
        return Answer(back="n/a", word="no cleanup step")
    return _of_step(step, str(cell.get("floor_basis") or ""))


def _of_step(step: Step, floor_basis: str) -> Answer:
    left, grown, tol = max(0, step.get("left") or 0), step.get("grown") or 0, step.get("tol") or 0
    verdict, meter = step["verdict"], step.get("meter")
    amounts = split(step, left, premapped="first touch" in floor_basis)
    runtime = amounts.runtime or 0
    own = max(0, left - runtime)  # the runtime's growth is never the cleanup's to give back
    word = str(step.get("word") or (WORDS[verdict] if meter != "rss" else RSS_WORDS[verdict]))  # "borderline: ..."
    if verdict in ("held", "partial") and step.get("framework_left") is None and not step.get("word"):
        # no framework view (TF 1.x, a script's peak, a CPU tensor): pool and live objects cannot be told apart,
        # but what the holder search saw alive there is live (named_live.py)
        named = step.get("named") or 0
        if verdict == "held":
            word = ("held by live objects" if named >= left - tol else "held by live objects and the process" if named
                    else "held by the process")
        else:
            word = "partly held by live objects" if named else "partly held by the process"
    if (amounts.heap or amounts.garbage) and word in ("held by the process", "partly held by the process") and (
            amounts.unexplained or 0) <= tol:  # all of it free heap or cycles not yet collected: no live object's
        word = HEAP_WORD if (amounts.heap or 0) >= (amounts.garbage or 0) else GARBAGE_WORD
    elif amounts.garbage and not amounts.live and word in ("held by live objects", "partly held by live objects"):
        word = GARBAGE_WORD  # what the framework counts live only cycles not yet collected keep
    if verdict == "released":
        # released with more than the tolerance left: the framework holds nothing (no live bytes, an
        # empty pool), so the rest is the runtime's own (kernels, library handles) until exit
        runtime = step.get("runtime_growth") or (left if left > tol else 0)
        word += f"; the runtime keeps {human_bytes(runtime)}" if runtime else ""
        back, own, amounts = "all", 0, Amounts(runtime=runtime or None)
    else:  # the runtime's growth is in neither side of the comparison
        back = "none" if own >= grown - runtime - tol else "part"
    if step.get("elsewhere"):  # a process the script started holds it: the driver did not get that back
        word += f"; another process holds {human_bytes(step['elsewhere'])}"
        back = "part" if back == "all" else back
    elif word.startswith("borderline"):  # left within the meter's noise of the release line: neither side
        back = "borderline"
    return Answer(back=back, word=word, label=step.get("label"), left=own, meter=meter, amounts=amounts)


def split(step: Step, left: int, premapped: bool) -> Amounts:
    """``left`` by where it is (_split); on a GPU meter, what the framework counts live that only cycles not yet
    collected keep is theirs, not live (rules 26)."""
    amounts = _split(step, left, premapped)
    if step.get("meter") == "rss" or not step.get("garbage") or not amounts.live:
        return amounts
    garbage = min(step.get("garbage") or 0, amounts.live)
    return replace(amounts, live=(amounts.live - garbage) or None, garbage=garbage)


def _split(step: Step, left: int, premapped: bool) -> Amounts:
    """``left`` by where it is: the step's own split where the framework reports its pool
    (attribution.py); else its live count, and the rest as the pool (a pool mapped at the first
    touch holds the runtime too) or, without a framework view, unexplained."""
    if step.get("pool") is not None or step.get("runtime_growth") is not None:
        live, pool, runtime = step.get("live") or 0, step.get("pool") or 0, step.get("runtime_growth") or 0
        unexplained, heap, garbage = _heap_of(step, max(0, left - live - pool - runtime))
        return Amounts(live=live or None, pool=pool or None, runtime=runtime or None, unexplained=unexplained, heap=heap,
                       garbage=garbage)
    live_now = step.get("framework_left")
    if live_now is None:  # what the holder search saw alive is live; the rest no count explains
        named = min(step.get("named") or 0, left)
        unexplained, heap, garbage = _heap_of(step, left - named)
        return Amounts(live=named or None, unexplained=unexplained, heap=heap, garbage=garbage)
    live = max(0, min(int(live_now), left))
    rest = left - live
    if step.get("meter") == "rss":
        unexplained, heap, garbage = _heap_of(step, rest)
        return Amounts(live=live or None, unexplained=unexplained, heap=heap, garbage=garbage)
    return Amounts(live=live or None, pool=rest or None, pool_and_runtime=premapped and bool(rest))


def _heap_of(step: Step, rest: int) -> tuple[int | None, int | None, int | None]:
    """(unexplained, the C allocator's free heap, cycles not yet collected) of what no framework count explains: the
    judge's ``heap`` and ``garbage`` on a host step (rules 24, 26), never more than ``rest`` together."""
    heap = min(step.get("heap") or 0, rest)
    garbage = min(step.get("garbage") or 0, rest - heap) if step.get("meter") == "rss" else 0
    return (rest - heap - garbage) or None, heap or None, garbage or None
