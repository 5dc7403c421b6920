"""Host memory a script leaves: what of it is glibc's free heap and what is live, told apart on a real glibc by
one malloc_trim(0) once the script's `end` was measured (agent/heap.py), so no line of the script reads memory
after it: the script's own last reading of its RSS is what it is bare."""
from __future__ import annotations

import ctypes.util
from pathlib import Path

import pytest
from helpers import repro_record

from harness.judgement import answer, leftover
from harness.judgement.cell import judge_cell
from harness.reporting import repro_md

MiB = 1 << 20
SCRIPT = """import gc
blocks = [bytearray(1000) for _ in range(300000)]  # ~300 MB on glibc's heap (over pymalloc's 512-byte limit)
keep = blocks[::100]  # every 100th stays: the heap's top cannot shrink
del blocks
gc.collect()
with open("/proc/self/statm") as statm:
    print("HEAP rss MiB", int(statm.read().split()[1]) * 4096 >> 20, "kept", len(keep))
"""


@pytest.mark.skipif("libc.so.6" not in str(ctypes.util.find_library("c")), reason="glibc's malloc_trim: musl has none")
def test_what_the_allocator_keeps_is_told_from_what_lives(tmp_path: Path) -> None:
    record = repro_record(tmp_path, SCRIPT, "heap.py")
    script = tmp_path / "heap.py"
    log = (tmp_path / "r" / "logs" / "local" / "repro__heap.log").read_text()
    rss = int(log.split("HEAP rss MiB ")[1].split()[0])
    assert rss >= 250, log  # the script's own reading, before the trim: the heap still held
    trim = record["heap_trim"]
    assert trim["before"] - trim["after"] >= 200 * MiB, trim
    (end,) = [s for s in record["verdicts"]["steps"] if s["label"] == "end"]
    assert end["meter"] == "rss" and 200 * MiB <= end["heap"] <= end["left"], end
    said = answer.of_cell(judge_cell(record)).text
    assert said.startswith("kept by the C allocator as free heap: ") and "(malloc_trim(0) gives it back)" in said, said
    text = repro_md.markdown([record], script)
    assert "was the C allocator's free heap (glibc's: `malloc_trim(0)`, called once the script was done" in text, text


def test_a_step_without_the_trim_is_judged_as_before() -> None:
    record = {"heap_trim": {"before": 400 * MiB, "after": 100 * MiB}}
    steps = [{"label": "x.py:3: del a", "meter": "rss", "left": 200 * MiB}, {"label": "end", "meter": "nvml_process",
                                                                              "left": 200 * MiB}]
    assert leftover.at_end(record, steps) == steps  # type: ignore[arg-type]  # only `end` on the host's meter
