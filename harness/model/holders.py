"""What the agent's holder search reports at a checkpoint (agent/holders.py), as the record keeps it: the
names that reach the framework's live memory, largest first, and what no name reaches."""
from __future__ import annotations

from typing import Any

from typing_extensions import Required, TypedDict


class Holder(TypedDict, total=False):
    """One name of the script and what it keeps alive."""

    owner: Required[str]  # the name that reaches the arrays: "losses", "train() local x", "Out", "sys.last_value"
    kind: str  # what that name is: "list of 100", "Adam", "Linear", "" where unknown
    bytes: Required[int]  # the arrays' memory, each allocation once, with what their graphs keep
    arrays: Required[int]
    graph: int  # how many of them keep an autograd graph
    graph_bytes: int  # of ``bytes``: what those graphs save for backward
    graph_unread: bool  # what those graphs save could not be read (torch 1.0 shows no saved tensors)
    paths: list[str]  # up to three paths from the name to an array
    shapes: str
    framework: str  # whose arrays: torch, tensorflow, jax, cupy, numpy, pandas, bytearray...
    made_at: list[Any]  # [line, the line's text]: where the script first binds the name
    grows_at: list[Any]  # [line, its text, how]: the line in a loop that grows it ("+=", "append", "[key] =")
    cycle: str  # kept by a reference cycle through its own autograd graph: "gc-proof" or "collectable" (agent/cycles.py)
    cycle_at: list[Any]  # [line, its text]: where the cycle is made (`ctx.out = out` in a Function's forward, a hook's def)


class Holders(TypedDict, total=False):
    """A checkpoint's holder search: ``error`` where it failed, else the holders and what none reaches."""

    holders: list[Holder]
    total: int  # every live array the search saw, and what graphs keep beyond them
    unaccounted: int  # of it, what no name of the script reaches
    framework: str | None  # the frameworks whose arrays were seen ("torch", "jax, torch")
    device: str  # "gpu" or "cpu": what the search counted
    budget_s: float
    unreadable: int  # objects met whose size could not be read (a proxy, a broken nbytes): skipped
    keras_graph_ops: int  # operations in Keras' global graph (agent/keras_graph.py): TF 2.0-2.3 keep models built there
    budget_hit: bool  # the search stopped at its time budget: not every holder is named
    seconds: float
    error: str


for _part in (Holder, Holders):  # keys a part does not name are kept as they came, as every part of the record
    setattr(_part, "__pydantic_config__", {"extra": "allow"})  # noqa: B010
