"""What the agent says to the host, message by message (agent/agent.py, agent/reaper.py, agent/spawned.py), and
what each one puts into the cell's record: the runner reads a message as the type of its kind."""
from __future__ import annotations

from typing import Any

from typing_extensions import TypedDict

from harness.model.facts import Facts
from harness.model.holders import Holders
from harness.model.leftover import HeapTrim
from harness.model.processes import AgentInfo, ChildFailed, NotebookRun
from harness.model.record import CellRecord, Checkpoint, ErrorInfo, FrameworkView, Status


class Hello(TypedDict, total=False):
    """``hello``: the agent started (its pid as it sees itself, its Python, what it saw of the variables)."""

    pid: int
    python: str
    executable: str
    env: dict[str, str]


class Said(TypedDict, total=False):
    """``checkpoint``: a step reached, before the host measures it."""

    seq: Any  # a number; a spawned worker's "p<pid>-<n>"
    label: str
    t: float
    view: dict[str, FrameworkView]
    frameworks: dict[str, str]  # imported so far, with their versions
    holders: Holders
    sizes: dict[str, int]  # a loop's sampled iteration: the script's containers by name, and their lengths
    skipped: str
    note: dict[str, str]
    baseline: bool  # the agent's reading before any scenario code
    rank: int
    pid: int
    spawned: bool


class End(TypedDict, total=False):
    """``end``: the scenario (or script) finished, one way or another."""

    status: str
    error: ErrorInfo | None
    facts: Facts
    exit_code: int | None
    loops: dict[str, int]
    notebook: NotebookRun
    heap_trim: HeapTrim  # agent/garbage.py: the free heap and uncollected cycles after `end`


class Exited(TypedDict, total=False):
    """``exit`` (the reaper: the script's process ended) and ``child-exit`` (a process it forked did)."""

    pid: int
    code: int | None
    t: float


def hello(record: CellRecord, said: Hello) -> None:
    record["agent"] = AgentInfo(pid=said.get("pid"), python=said.get("python"), executable=said.get("executable"))
    record["env_seen"] = said.get("env") or {}  # memory-relevant variables, as the cell saw them
    record["facts"] = {"python": said.get("python"), "frameworks": {}}


def checkpoint(said: Said, checkpoint: Checkpoint) -> None:
    """What the agent said of a step, beside the host's readings: skipped, holders, a note, and which process."""
    if said.get("skipped"):
        checkpoint["skipped"] = said["skipped"]
    if said.get("holders"):  # what holds the framework's live memory (agent/holders.py)
        checkpoint["holders"] = said["holders"]
    if said.get("sizes"):  # which container grows with the loop (judgement/growing.py)
        checkpoint["sizes"] = said["sizes"]
    if said.get("note"):
        checkpoint["note"] = said["note"]
    if (rank := said.get("rank")) is not None:  # a launcher's rank, a spawned worker: which process took it
        checkpoint["rank"] = rank
    if (pid := said.get("pid")) is not None:
        checkpoint["pid"] = pid
    if (spawned := said.get("spawned")) is not None:
        checkpoint["spawned"] = spawned


def end(record: CellRecord, said: End) -> None:
    record["status"] = Status(said.get("status") or Status.ERROR)
    record["error"] = said.get("error")
    record["facts"] = said.get("facts") or record["facts"]
    if (code := said.get("exit_code")) is not None:
        record["script_exit_code"] = code  # what the script itself ended with
    if said.get("loops"):
        record["loops"] = said["loops"]  # looped checkpoint site -> iterations run
    if said.get("notebook"):
        record["notebook"] = said["notebook"]  # cells run, errors, IPython, lines not run
    if said.get("heap_trim"):
        record["heap_trim"] = said["heap_trim"]  # what of the end's host memory was the C allocator's free heap


def child_exit(record: CellRecord, said: Exited) -> None:
    """A process the script forked ended: a failing worker is named (its PID as the script saw it)."""
    record["children_exited"] = record.get("children_exited", 0) + 1
    if said.get("code"):
        record.setdefault("children_failed", []).append(ChildFailed(pid=said.get("pid"), code=said.get("code"),
                                                                    t=said.get("t")))
