"""What a loop keeps, named where most leak reports have it: in a loop with no cleanup line, at the
script's end. Real scripts in a real process (the process backend, this Python): the container that grows
is told from the loop's sampled iterations, the holder search at `end` names it with the line that grows it
and the fix for its pattern; buffers and views are counted once; the script's output is its own."""
from __future__ import annotations

from pathlib import Path
from typing import cast

from helpers import repro_record

from harness.judgement import growing, holders
from harness.model.record import CellRecord
from harness.reporting import repro_md

LOOP = """chunks = []
cache = {}
for step in range(25):
    block = bytearray(8 << 20)  # 8 MiB, every page written
    block[::4096] = b"x" * len(block[::4096])
    chunks.append(block)
    cache[step] = memoryview(block)  # a view: the same memory, counted once
print("LOOP done", len(chunks), len(cache))
"""


def _run(tmp_path: Path, source: str) -> CellRecord:
    return cast(CellRecord, repro_record(tmp_path, source))


def test_a_loop_without_a_cleanup_line_names_what_it_keeps_at_the_end(tmp_path: Path) -> None:
    record = _run(tmp_path, LOOP)
    assert "LOOP done 25 25" in str(record.get("stderr_tail") or "") + (tmp_path / "r").joinpath(
        "logs", "local", "repro__leak.log").read_text()
    end = record["checkpoints"][-1]
    assert end["label"] == "end"
    found = end.get("holders") or {}
    (chunks,) = [h for h in found.get("holders") or [] if h["owner"] == "chunks"]
    # the last block is `block`'s too, the shorter path: named by it
    assert chunks["bytes"] == 24 * (8 << 20) and chunks["arrays"] == 24, chunks
    (block,) = [h for h in found.get("holders") or [] if h["owner"] == "block"]
    assert block["bytes"] == 8 << 20 and "grows_at" not in block  # a slice written in place is no growth
    assert chunks["grows_at"] == [6, "chunks.append(block)", "append"], chunks
    assert not [h for h in found.get("holders") or [] if h["owner"] == "cache"]  # its views counted with chunks
    said = holders.said_at(end)
    assert said[0].startswith("`chunks` (list of 25) gains one per iteration at line 6 (`chunks.append(block)`): 24 "
                              "arrays (192.00 MiB), 8.00 MiB each; `chunks.clear()` once they are used."), said
    (site, grows), = growing.growing(record["checkpoints"]).items()
    assert site == "leak.py:3: for step in range(25):"
    assert [(g.name, g.per_iteration) for g in grows] == [("cache", 1.0), ("chunks", 1.0)]
    text = repro_md.markdown([record], tmp_path / "leak.py")
    assert "What holds the host memory at `end`:" in text
    assert "  - what grows with it: `cache` gains 1 per iteration (19 when #20 began); `chunks` gains 1" in text, text


def test_a_sum_that_keeps_each_iterations_value_is_named_with_its_line() -> None:
    """The holder's words for each pattern a loop grows by (the agent's grows_at), on the real shapes."""
    summed = {"owner": "total_loss", "kind": "Tensor", "bytes": 118 << 20, "arrays": 1, "graph": 1, "graph_bytes": 118 << 20,
              "grows_at": [8, "total_loss += loss", "+="]}
    assert holders.sentence(summed).startswith(
        "`total_loss` (Tensor) adds each iteration's `loss` with its autograd graph at line 8 (`total_loss += loss`): "
        "1 tensor (118.00 MiB, 118.00 MiB of it saved by their graphs for backward), every iteration's graph kept; add "
        "`loss.item()` (a float) or `loss.detach()` instead.")
    filled = {"owner": "cache", "kind": "dict of 60", "bytes": 480 << 20, "arrays": 60,
              "grows_at": [5, "cache[k] = y", "[key] ="]}
    assert holders.sentence(filled, "array") == (
        "`cache` (dict of 60) gains an entry per iteration at line 5 (`cache[k] = y`): 60 arrays (480.00 MiB), 8.00 MiB "
        "each; clear it once used, or bound it (drop old keys).")


def test_a_length_that_goes_up_and_down_is_not_growth() -> None:
    cps = [{"label": f"t.py:3: for i in range(9):#{n}", "sizes": {"batch": b, "seen": n}} for n, b in
           ((1, 4), (2, 8), (3, 4), (4, 8))]
    assert [(g.name, g.last) for g in growing.growing(cps)["t.py:3: for i in range(9):"]] == [("seen", 4)]  # type: ignore[arg-type]
