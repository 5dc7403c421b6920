"""What the judge makes of a record, as types: one judged step (``Step``), as verdicts.py writes it into a
record's ``verdicts`` and every output reads it. Data only: the judging is judgement/'s."""
from __future__ import annotations

from typing import Any

from typing_extensions import Required, TypedDict

from harness.model.processes import GpuProcess, KilledProcess


class Step(TypedDict, total=False):
    """One cleanup step judged: what was left of what the scenario grew, on which meter, and why. A cell
    summary's copy (judgement/cell.summary_step) has the same keys on every step, None where the judge wrote none."""

    label: Required[str]
    verdict: Required[str]  # released / cached / held / partial / no-signal / unmeasured / skipped
    meter: str | None
    grown: int | None  # bytes the scenario grew from its floor to its peak (its own process; others apart)
    left: int | None  # bytes still above the floor here
    tol: int | None  # what "released" allows at most
    framework_left: int | None  # the framework's own in-use count above its floor
    framework_grown: int | None
    word: str  # the judge's word where the verdict alone would mislead ("borderline: ...", "n/a: ...")
    reason: str | None  # a skipped step's: why it means nothing here
    detail: str | None  # the step in words (sentences.detail)
    pool: int | None  # what is left, split where the framework reports its pool (attribution.split_own)
    live: int | None
    runtime_growth: int | None
    elsewhere: int | None  # held by another process the script started
    heap: int | None  # host memory: of ``left``, the C allocator's free heap (malloc_trim(0) gave it back after `end`)
    garbage: int | None  # host memory: of ``left`` less ``heap``, cycles gc had not yet freed (agent/garbage.py)
    named: int | None  # of ``left``, the live arrays the holder search saw where no framework count says (named_live.py)
    elsewhere_processes: list[GpuProcess]
    judged_alone: bool  # a launcher's rank, judged on its own process and GPU (ranks.py)


class ExitVerdict(TypedDict, total=False):
    """Whether the cell's processes gave everything back once they were gone (verdicts.judge_exit)."""

    verdict: str  # returned / not-returned
    meter: str
    left: int


class Judged(TypedDict, total=False):
    """What the judge decides of one record (verdicts.judge): kept in the record as it ended (``verdicts``)
    and decided again, by today's rules, wherever a record is read."""

    rules_version: int  # judgement/rules.RULES_VERSION: which rules judged it
    status: str  # the record's own, or unsupported / harness-error where the judge knows better
    unsupported_reason: str
    harness_reason: str
    gpu_only: str  # why the cell shows nothing without a GPU
    floor: str | None  # the checkpoints that were the floor and the peak
    peak: str | None
    driver_floor: int | None  # the judged meter's floor (floors.DriverFloor.describe)
    floor_basis: str | None
    runtime_cost: int | None
    first_touch: str | None
    premapped: bool | None
    steps: list[Step]
    exit: ExitVerdict | None
    tolerances: dict[str, Any]


class LoopLine(TypedDict):
    """What the judge's answer says of a cell's loop (the fields of LoopSummary it shows)."""

    site: str
    slope: int
    noise: int
    growing: bool
    state: str
    text: str


class Glance(TypedDict, total=False):
    """The judge's answer for a cell as matrix.json keeps it (judgement/answer.Answer.as_dict): every output
    shows its colour and its text, never one of its own."""

    back: Required[str]  # all / part / none / n/a
    colour: Required[str]
    word: Required[str]
    text: Required[str]  # the phrase every output shows
    verdict: str  # the one word a page keys its cell on
    label: str | None  # the deciding step
    left: int | None
    meter: str | None
    amounts: dict[str, int | bool] | None
    loop: LoopLine
    gpus: list[str]
    caveats: list[str]


class Column(TypedDict, total=False):
    """A column's release line (reporting/glance.columns): what its records say they ran, and whether any ran
    (a matrix.json written before ``ran`` was kept has none: its columns ran)."""

    frameworks: dict[str, str]
    python: str | None
    cuda: str | None
    gpu: str | None
    driver: str | None
    ran: bool  # a column whose environment was never built ran nowhere


class LoopSummary(TypedDict):
    """A cell's loop line (judgement/loops.summary): the steepest site's growth per iteration, on the meter that saw it."""

    site: str  # the looped checkpoint's site
    measured: int  # iterations read
    slope: int  # bytes per iteration
    noise: int
    growing: bool
    state: str  # grows / flat / unclear / small / twice
    text: str
    meter: str


class CellSummary(TypedDict, total=False):
    """A judged cell as matrix.json keeps it (judgement/cell.judge_cell) and every renderer reads it:
    the judge's status, steps and exit, the readings at each checkpoint, and the judge's answer (``glance``)."""

    status: Required[str | None]  # the judge's: ok, error, unsupported, ... (a record's own where it was not re-judged)
    meter: str | None  # the meter its answer is read on
    levels: dict[str, int]  # each checkpoint's reading above the process's start, on ``meter``
    framework_levels: dict[str, int]  # the framework's own count at each checkpoint, above its floor
    framework_in_use: dict[str, int]  # where that count keeps a peak (TF): what is in use at each checkpoint, no peak
    blind_labels: list[str]  # checkpoints whose NVML reading cannot show use (a pool mapped at the first touch)
    runtime_cost: int | None
    floor_basis: str | None
    exit_meter: str | None
    steps: list[Step]
    exit: str | None  # returned / not-returned
    error: str | None  # why it is not ok, in one line
    framework: dict[str, str]  # the releases it imported
    python: str | None
    killed: list[KilledProcess]  # processes the harness had to end after the cell
    duration_s: float | None
    loop: LoopSummary | None  # judgement/loops.summary
    gpu_only: str  # why a GPU-memory scenario measured without a GPU answers n/a
    multigpu: list[str]  # judgement/multigpu.short_findings
    caveats: list[str]  # judgement/failures.caveats
    glance: Glance  # the judge's answer (judgement/answer.Answer.as_dict)


class ClaimResult(TypedDict):
    """A seed claim's outcome in one column (judgement/claims.assess)."""

    outcome: str  # confirmed / contradicted / not reproduced / untestable
    why: str
    observed: str | None  # the verdict the claim was read on, where it was one step's


class ClaimRow(TypedDict):
    """A seed claim as matrix.json keeps it: what it says, where it comes from, its outcome per column."""

    id: str
    says: str
    seed: str
    scenario: str
    step: str | None
    expect: list[str]
    compare: dict[str, Any] | None
    results: dict[str, ClaimResult]  # column -> outcome


class MatrixDoc(TypedDict, total=False):
    """A run judged, as matrix.json keeps it (reporting/aggregate.matrix_from) and matrix.md, the terminal and
    the report render it: a cell summary per scenario and column, the seed claims' outcomes, what was read how."""

    schema_version: Required[int]
    record_schema_version: int
    rules_version: int  # judgement/rules.RULES_VERSION: which rules judged it
    run: str
    note: str
    environments: Required[list[str]]  # the columns, in the definitions' order
    machine: str  # where it ran, in one line (glance.NO_GPU on a host without one)
    legend: dict[str, str]
    columns: dict[str, Column]  # each column's facts (glance.columns)
    scenarios: list[str]
    cells: Required[dict[str, dict[str, CellSummary]]]  # scenario -> column -> cell
    unreadable: list[dict[str, str]]
    tolerances: dict[str, Any]
    tolerances_text: str
    claims: list[ClaimRow]  # each seed claim with its outcome per column (judgement/claims.assess)
    compare: Compare  # --compare: the two runs side by side (aggregate.compare)
    sweep: SweepSummary  # a sweep's: its releases and turns (reporting/sweeps)


class ColumnPair(TypedDict):
    """A column of this run and the one of another run it answers to (reporting/pairing.pair_columns)."""

    env: str
    other_env: str
    by: str  # how they were paired: the same environment, or the same framework


class ChangedCell(TypedDict):
    scenario: str
    env: str
    other_env: str
    before: str  # the cell's outcome in the other run
    after: str


class Compare(TypedDict):
    """--compare: the cells whose outcome differs from another run's (reporting/aggregate.compare)."""

    other: str  # the other run's id
    pairs: list[ColumnPair]
    changed: list[ChangedCell]


class Candidate(TypedDict, total=False):
    """Two neighbouring releases of a sweep's row with the same words and amounts far apart
    (judgement/amounts.candidates); its repeats decide whether it is a turn (amounts.judge)."""

    scenario: Required[str]
    before_release: Required[str]
    release: Required[str]
    before_env: str
    env: Required[str]
    before: Required[int]  # bytes left at the deciding step, each side
    after: Required[int]
    meter: str
    words: Required[str]
    runs: int  # the repeats of each side (amounts.judge)
    spread_before: list[int]  # [least, most] left over the repeats
    spread_after: list[int]
    confirmed: bool | None  # every repeat of one side clear of the other's; None: one run a side


class Change(TypedDict, total=False):
    """Where a sweep's row turns (reporting/sweeps.changes, amounts.as_changes): its sides as the judge says them."""

    scenario: Required[str]
    env: Required[str]
    release: Required[str]
    before_release: Required[str]
    between: list[str]  # the releases in between, which gave no comparable answer
    before: Required[str]
    after: Required[str]
    kind: str  # "runs" (failing against running) or "amount"; absent for a change of answer
    runs: int  # an amount's repeats of each side
    runs_each: list[int]  # a change of answer: the runs of each side (before, after) that gave that side's answer
    standing: str  # "confirmed" (RUNS_TO_CONFIRM such runs each side), "candidate", or "contested" (no turn)


# sweep.json's request (running/sweep_run.run_sweep): what --resume plans again
SweepRequest = TypedDict("SweepRequest", {
    "package": str, "from": str, "to": str, "every": str, "pre": bool, "script": str | None, "fixed": list[str],
    "releases": list[str], "repeat": int}, total=False)

# sweep.json: "from" is a keyword, so the functional form
SweepSummary = TypedDict("SweepSummary", {
    "package": str, "from": str, "to": str, "every": str, "fixed": list[str], "releases": list[str],
    "columns": dict[str, str],  # environment -> release
    "skipped": dict[str, str],  # environment -> why it did not run
    "prepare_s": dict[str, float], "request": SweepRequest, "repeats": dict[str, list[int]],
    "amounts": list[Candidate], "changes": list[Change],
    "unsettled": list[Change],  # turns a run of one side contradicts (it gave the other side's answer): none named
    "runtime": dict[str, dict[str, int]],  # release -> the runtime's own memory: min, median, max, cells
    "unfinished": dict[str, list[int]], "machine": str | None, "companions": dict[str, dict[str, str]],
    "wall_s": float | None, "part_wall_s": float, "parts": int,
}, total=False)
