"""What a script's process keeps at `end` that no live object holds, as the agent measured it once the script was
done: the C allocator's free heap (agent/heap.py) and reference cycles Python's collector had not yet freed
(agent/garbage.py)."""
from __future__ import annotations

from typing_extensions import TypedDict


class GarbageCensus(TypedDict, total=False):
    """Cycles the collector would free now, found in a forked copy of the process (DEBUG_SAVEALL, nothing freed in
    the script's own): how many objects, their size as Python objects, what freeing them gave back."""

    objects: int
    bytes: int  # sys.getsizeof summed: the objects themselves, not what C code keeps behind them
    unreadable: int  # objects whose size could not be read (counted, not sized)
    types: list[list[str | int]]  # [type, count, bytes] by bytes
    libraries: list[list[str | int]]  # [type, count, bytes] of types from outside the standard library, by count
    arrays: dict[str, int]  # framework -> bytes of its arrays (on the measured device) that only the cycles keep
    freed: int | None  # the copy's RSS fall once they were freed (both sides after malloc_trim(0)); None: not read
    seconds: float
    stopped: str  # why the copy said less than all (its time limit)


class HeapTrim(TypedDict, total=False):
    """The process's RSS around one malloc_trim(0) after `end` (what was the C allocator's free heap)."""

    before: int
    after: int
    seconds: float
    garbage: GarbageCensus
