"""Findings that only several GPUs make: a process holding memory on a GPU that is not its own.

The classic one: every rank touches CUDA before ``torch.cuda.set_device`` (or loads a checkpoint
without ``map_location``), and each makes a context on GPU 0 too, a few hundred MiB per rank that
nothing gives back before the process exits. Read from the per-process, per-GPU NVML readings of
each checkpoint, so it is found for ranks of a launcher and for spawned workers alike.
"""
from __future__ import annotations

from dataclasses import dataclass

from harness.common.units import human_bytes
from harness.judgement import attribution
from harness.judgement.ranks import held_by_gpu, home_gpus
from harness.model.record import CellRecord

STRAY_MIN_BYTES = 64 * 2**20  # a CUDA context is hundreds of MiB; less is noise in NVML's per-process view


@dataclass(frozen=True)
class StrayMemory:
    pid: int
    rank: int | None
    own_gpu: int
    other_gpu: int
    bytes: int
    at: str  # the checkpoint where it held the most there

    def sentence(self) -> str:
        who = f"Rank {self.rank} (PID {self.pid})" if self.rank is not None else f"PID {self.pid}"
        return (f"{who} holds {human_bytes(self.bytes)} on GPU {self.other_gpu} besides its own GPU "
                f"{self.own_gpu} (at `{self.at}`): a CUDA context made there before the process chose its device "
                f"(CUDA used before `torch.cuda.set_device`, or `torch.load` without `map_location`); nothing gives it "
                f"back before the process exits. Call `torch.cuda.set_device(local_rank)` before any CUDA work.")


def stray_memory(record: CellRecord) -> list[StrayMemory]:
    """Each of the cell's processes that held memory on another process's GPU (its own: the one it
    used most)."""
    ranks = attribution.ranks_by_pid(record)
    most = held_by_gpu(record)
    own = home_gpus(most)
    found = []
    for pid, by_gpu in sorted(most.items()):
        # Only where another of the cell's processes has that GPU as its own: one process using two
        # GPUs (DataParallel, a model split by hand) is doing what it was written to do.
        theirs = {g for other, g in own.items() if other != pid}
        for gpu, (held, where) in sorted(by_gpu.items()):
            if gpu != own[pid] and gpu in theirs and held >= STRAY_MIN_BYTES:
                found.append(StrayMemory(pid, ranks.get(pid), own[pid], gpu, held, where))
    return found
