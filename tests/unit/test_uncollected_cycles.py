"""Host memory a script leaves in reference cycles the garbage collector has not yet freed (a program that turns the
collector off, or TF 2.2's predict() between full collections): counted at `end` in a forked copy of the process
(agent/garbage.py), told apart from live objects and from the C allocator's free heap, and never collected in the
script's own process: its last readings, its output and its exit are what they are bare."""
from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT, repro_record

from harness.judgement import answer, verdicts
from harness.judgement.cell import judge_cell
from harness.reporting import repro_md

MiB = 1 << 20
SCRIPT = """import gc, sys
gc.disable()  # as a program that manages its own collections does


class Node(object):
    pass


for _ in range(200):
    node = Node()
    node.me, node.payload = node, bytearray(1 << 20)  # 1 MiB that only its own cycle keeps
del node
print("CYCLES enabled", gc.isenabled(), "garbage", len(gc.garbage), "count", gc.get_count()[2])
sys.stdout.flush()
"""


def test_cycles_not_yet_collected_are_told_from_live_objects(tmp_path: Path) -> None:
    record = repro_record(tmp_path, SCRIPT, "cycles.py")
    census = record["heap_trim"]["garbage"]
    assert census["objects"] >= 200 and census["freed"] >= 190 * MiB, census  # 200 nodes (their dicts on 3.10)
    # the payloads, which the collector does not track, counted once with the cycles that hold them
    assert census["bytes"] >= 200 * MiB and census["types"][0][:2] == ["builtins.bytearray", 200], census
    assert census["libraries"][0][:2] == ["__main__.Node", 200], census
    (end,) = [s for s in record["verdicts"]["steps"] if s["label"] == "end"]
    assert 190 * MiB <= end["garbage"] <= end["left"], end
    said = answer.of_cell(judge_cell(record)).text
    assert said.startswith(answer.GARBAGE_WORD + ": ") and "(gc.collect() frees it)" in said, said
    text = repro_md.markdown([record], tmp_path / "cycles.py")
    assert "was reference cycles Python's garbage collector had not yet freed" in text, text
    assert "objects were in reference cycles that Python's garbage collector had not yet freed, among them the " \
           "script's Node (200); freeing them (in a copy of the process) gave " in text, text
    # the copy is no child of the script's: nothing reported, and the script's own words are its bare ones
    assert not record.get("children_exited") and record["exit_code"] == 0, record.get("children_exited")
    log = (tmp_path / "r" / "logs" / "local" / "repro__cycles.log").read_text()
    bare = subprocess.run([sys.executable, str(tmp_path / "cycles.py")], capture_output=True, text=True, timeout=60)
    assert [ln for ln in log.splitlines() if ln.startswith("CYCLES")] == bare.stdout.splitlines(), (log, bare.stdout)


CYCLES_H200 = ROOT / "tests" / "data" / "records" / "cycles-h200"  # copies of h200-580.159.04-cycles' records


@pytest.mark.parametrize(("script", "framework", "held"), [("cyc", "torch", 200 * MiB), ("cycj", "jax", 320 * MiB)])
def test_gpu_memory_only_cycles_keep_is_theirs_not_live(script: str, framework: str, held: int) -> None:
    """Copies of the H200 records: what the framework counts in use that only cycles keep is said as theirs."""
    path = CYCLES_H200 / f"repro__{script}.json.gz"
    record = json.loads(gzip.decompress(path.read_bytes()))
    assert record["heap_trim"]["garbage"]["arrays"] == {framework: held}, record["heap_trim"]
    record["verdicts"] = verdicts.judge(record)
    said = answer.of_cell(judge_cell(record))
    assert said.word == answer.GARBAGE_WORD and said.amounts and said.amounts.garbage == held, said
    assert said.text.startswith(f"{answer.GARBAGE_WORD}: {held >> 20}.00 MiB (gc.collect() frees it)"), said.text
    assert not said.amounts.live, said.amounts  # none of it is live: before, "held by live objects"


def test_cycles_beside_a_pool_mapped_whole_are_said_to_the_frameworks_precision() -> None:
    """JAX preallocating 104.5 GiB on the H200: 320 MiB of its arrays only cycles keep were dropped as noise against
    5% of what the step grew (5.2 GiB) and read '320.00 MiB live'. The framework's own count is exact to 4 MiB."""
    record = json.loads(gzip.decompress((CYCLES_H200 / "repro__cycj_preallocated.json.gz").read_bytes()))
    record["verdicts"] = verdicts.judge(record)
    end = record["verdicts"]["steps"][-1]
    assert end["tol"] > 5 << 30 and end["garbage"] == 320 * MiB  # the step's tolerance is 5.2 GiB: not the garbage's
    said = answer.of_cell(judge_cell(record))
    assert said.text.startswith("cached in the pool: 104.54 GiB in the pool, 320.00 MiB in cycles not yet collected")
    assert not said.amounts or not said.amounts.live


AT_END = """import gc, json, sys
sys.path.insert(0, {agent!r})
import garbage
gc.disable()
node = []
node.append(node)
del node  # one cycle the collector has not yet freed
said = {{}}
cases = (("none found", None, True), ("nothing", {{"total": 0}}, True), ("arrays", {{"total": 1 << 20}}, True),
         ("cut", {{"total": 0, "budget_hit": True}}, True), ("not searched", None, False))
for name, search, searched in cases:
    trim = garbage.at_end(["torch"], ["torch"], search, searched)
    said[name] = trim is not None and "garbage" in trim
print(json.dumps(said))
"""


def test_no_copy_where_the_search_found_no_array_a_cycle_could_keep() -> None:
    """torch counts its cuBLAS workspace in use at `end`, which no Python object holds: where the search at `end` looked
    at every object and found no array of a counting framework, the forked census (0.2 s on a CUDA process) is not
    made; where it found arrays, or stopped short, it is."""
    out = subprocess.run([sys.executable, "-c", AT_END.format(agent=str(ROOT / "harness" / "agent"))],
                         capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == {"none found": False, "nothing": False, "arrays": True, "cut": True, "not searched": True}, out
