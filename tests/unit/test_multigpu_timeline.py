"""Processes that reach no checkpoint (mp.spawn's workers, ranks of a command the harness cannot
instrument) are still seen: the timeline keeps each process's peak and last sighting per GPU, and
the multi-GPU findings read them. Real processes for the sightings; planted NVML listings."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from harness.judgement import multigpu
from harness.measurement.meters import Meters, PidTracker, TimelineSampler
from harness.measurement.process_spans import ProcessSpans
from harness.model.processes import ProcessSpan
from harness.model.record import CellRecord
from harness.reporting import repro_md
from tests.unit.test_multi_gpu import PlantedNvml

MiB = 2**20
T0 = 1_800_000_000.0
SPAWN = ("/usr/bin/python3 -c from multiprocessing.spawn import spawn_main; spawn_main(tracker_fd=5, pipe_handle=7) "
         "--multiprocessing-fork")


def _span(pid: int, first: float, last: float, command: str = SPAWN, ppid: int = 100,
          **gpus: tuple[int, float, int]) -> ProcessSpan:
    """gpus: g0=(peak MiB, peak at, last MiB): last seen there at ``last``."""
    return {"pid": pid, "ppid": ppid, "command": command, "first_t": T0 + first, "last_t": T0 + last,
            "gpus": {k[1:]: {"peak": peak * MiB, "peak_t": T0 + at, "last": held * MiB, "last_t": T0 + last}
                     for k, (peak, at, held) in gpus.items()}}


def _record(spans: list[ProcessSpan], end: float = 10.0, killed: tuple[int, ...] = ()) -> CellRecord:
    return {"env": {"name": "e"}, "scenario": {"name": "repro/x"}, "status": "ok",  # type: ignore[typeddict-item]
            "host": {"gpu_indices": [0, 1]}, "checkpoints": [], "script_pid": 100,
            "killed": [{"pid": pid} for pid in killed],
            "timeline": {"columns": ["t", "rss", "nvml_device", "nvml_process"],
                         "samples": [[T0, 1, 0, 0], [T0 + end, 1, 0, 0]], "processes": spans}}


def test_a_spawned_worker_with_a_context_on_another_workers_gpu_is_named_from_the_timeline() -> None:
    """context_on_gpu0.py under mp.spawn: the workers never reach a checkpoint; worker 1 made a
    context on GPU 0 before set_device. Only the timeline saw it."""
    record = _record([_span(201, 1.0, 4.0, g0=(630, 2.5, 630)),
                      _span(202, 1.0, 4.1, g0=(520, 2.0, 520), g1=(630, 2.6, 630))])
    (stray,) = multigpu.stray_memory(record)
    assert (stray.pid, stray.own_gpu, stray.other_gpu, stray.bytes) == (202, 1, 0, 520 * MiB)
    sentence = stray.sentence()
    assert sentence.startswith("The spawned worker PID 202 holds 520.00 MiB on GPU 0 besides its own GPU 1 "
                               "(at its peak, 2.0 s into the run)"), sentence
    assert "torch.cuda.set_device" in sentence
    one_gpu = {**record, "host": {"gpu_indices": [0]}}
    assert multigpu.stray_memory(one_gpu) == []  # one GPU given: nothing is another's


def test_a_worker_that_outlives_its_peer_holding_memory_is_named() -> None:
    record = _record([_span(201, 1.0, 3.0, g0=(900, 2.0, 900)), _span(202, 1.0, 9.5, g1=(1400, 2.0, 1200))],
                     end=9.5, killed=(202,))
    (found,) = multigpu.outlived(record)
    assert found.sentence().startswith("The spawned worker PID 201 ended 3.0 s into the run while the spawned worker "
                                       "PID 202 still held 1.17 GiB on GPU 1, for 6.5 s more, and was still there when "
                                       "the cell ended"), found.sentence()
    assert "NCCL's timeout" in found.sentence()


def test_peers_that_end_together_or_hold_little_or_are_not_peers_are_no_finding() -> None:
    together = [_span(201, 1.0, 3.0, g0=(900, 2.0, 900)), _span(202, 1.0, 3.4, g1=(900, 2.0, 900))]
    assert multigpu.outlived(_record(together)) == []
    small = [_span(201, 1.0, 3.0, g0=(900, 2.0, 900)), _span(202, 1.0, 9.0, g1=(900, 2.0, 20))]
    assert multigpu.outlived(_record(small)) == []  # what it held when last seen is noise
    parent_and_child = [_span(201, 1.0, 3.0, ppid=100, g0=(900, 2.0, 900)),
                        _span(100, 0.0, 9.0, ppid=1, command="python train.py", g0=(2000, 2.0, 2000))]
    assert multigpu.outlived(_record(parent_and_child)) == []  # a script outliving its helper is not a rank outliving a peer


def test_the_findings_are_in_repro_md() -> None:
    record = _record([_span(201, 1.0, 4.0, g0=(630, 2.5, 630)),
                      _span(202, 1.0, 4.1, g0=(520, 2.0, 520), g1=(630, 2.6, 630))])
    record["host"] = {"gpu_indices": [0, 1], "nvml_available": True}
    record["checkpoints"] = [{"seq": 1, "label": "start", "t": T0 + 0.5, "readings": {"nvml_device": 0, "rss": 1}}]
    text = repro_md.markdown([record], Path("x.py"))
    assert "- The spawned worker PID 202 holds 520.00 MiB on GPU 0" in text


def test_the_sampler_keeps_each_real_process_with_its_peak_and_last_sighting_per_gpu() -> None:
    """Real children of a real process, sampled by the timeline; the NVML listing planted for them."""
    code = ("import subprocess,sys,time\n"
            "ps=[subprocess.Popen([sys.executable,'-c','import time; time.sleep(%s)' % s]) for s in (0.4, 1.5)]\n"
            "[p.wait() for p in ps]")
    parent = subprocess.Popen([sys.executable, "-c", code])
    try:
        deadline = time.monotonic() + 5
        while len(kids := _children(parent.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(kids) == 2
        short, long_ = sorted(kids)
        nvml = PlantedNvml({0: 0, 1: 0}, {0: {short: 300 * MiB}, 1: {long_: 700 * MiB}})
        with TimelineSampler(Meters(nvml, 0, (0, 1)), PidTracker(lambda: parent.pid)) as sampler:
            parent.wait(5)
        spans = {s["pid"]: s for s in sampler.spans.as_record()}
    finally:
        parent.kill()
    assert spans[short]["gpus"]["0"]["peak"] == 300 * MiB and "1" not in spans[short]["gpus"]
    assert spans[long_]["gpus"]["1"]["peak"] == 700 * MiB
    assert spans[long_]["last_t"] - spans[short]["last_t"] > 0.7  # the short one was seen to end first
    assert spans[short]["ppid"] == parent.pid and "time.sleep(0.4)" in spans[short]["command"]


def _children(pid: int) -> list[int]:
    from harness.measurement import procs

    return [p for p in procs.descendants(pid) if p != pid]


def test_spans_keep_processes_with_gpu_memory_first() -> None:
    spans = ProcessSpans()
    spans.add(T0, {os.getpid()}, {0: [(os.getpid(), 5 * MiB), (1, 9 * MiB)]})  # PID 1 is not the cell's
    (only,) = spans.as_record()
    assert only["pid"] == os.getpid() and only["gpus"]["0"]["peak"] == 5 * MiB


def test_recorded_on_two_h100s_the_spawned_workers_findings_are_said() -> None:
    """The records of the two-H100 run (matrix/reference/h100x2-580.159.04-spawned; copies in tests/data/records)."""
    import gzip
    import json

    runs = Path(__file__).resolve().parents[1] / "data" / "records" / "spawned"

    def record(name: str) -> CellRecord:
        path = runs / f"repro__{name}.json.gz"
        loaded: CellRecord = json.loads(gzip.open(path).read())
        return loaded

    (stray,) = multigpu.stray_memory(record("context_on_gpu0"))
    assert (stray.own_gpu, stray.other_gpu, stray.bytes >> 20) == (1, 0, 520)
    assert stray.sentence().startswith("The spawned worker PID")
    (outlived,) = multigpu.outlived(record("rank_outlives"))
    assert (outlived.gpu, round(outlived.for_s)) == (1, 5) and not outlived.killed
    for name in ("ddp_spawn", "data_parallel", "on_cuda1"):
        assert multigpu.stray_memory(record(name)) == multigpu.outlived(record(name)) == []
