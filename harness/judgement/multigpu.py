"""Findings that only several GPUs make: a process holding memory on a GPU that is not its own, and
what a rank still holds after ``destroy_process_group()``.

The classic one: every rank touches CUDA before ``torch.cuda.set_device`` (or loads a checkpoint
without ``map_location``), and each makes a context on GPU 0 too, a few hundred MiB per rank that
nothing gives back before the process exits. Read from the per-process, per-GPU NVML readings of
each checkpoint, so it is found for ranks of a launcher and for spawned workers alike.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from harness.common.units import human_bytes
from harness.judgement import attribution
from harness.judgement.floors import in_use, view_sum
from harness.judgement.ranks import held_by_gpu, held_on, home_gpus
from harness.model.record import CellRecord, process_of

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


DESTROY = re.compile(r"(?:^|: )\S+:\d+: .*destroy_process_group\(")  # the cleanup line, as repro labels it


@dataclass(frozen=True)
class AfterDestroy:
    pid: int
    rank: int | None
    gpu: int
    held: int  # the process's bytes on its GPU right after destroy_process_group()
    pool: int | None  # what the framework's allocator still reserves there (its live bytes among it)
    live: int | None
    at: str

    def sentence(self) -> str:
        who = f"rank {self.rank} (PID {self.pid})" if self.rank is not None else f"PID {self.pid}"
        if self.pool is None:
            return (f"After `{self.at}`, {who} still holds {human_bytes(self.held)} on GPU {self.gpu}: what the CUDA "
                    "context, NCCL and the libraries keep, given back only when the process exits.")
        rest = max(0, self.held - self.pool)
        pool = (f"{human_bytes(self.pool)} in torch's pool ({human_bytes(self.live)} of it live: `del` what holds it, "
                "then `torch.cuda.empty_cache()`)" if self.live else
                f"{human_bytes(self.pool)} in torch's pool (none of it live: `torch.cuda.empty_cache()` returns it)")
        return (f"After `{self.at}`, {who} still holds {human_bytes(self.held)} on GPU {self.gpu}: {pool}, and "
                f"{human_bytes(rest)} that the CUDA context, NCCL's communicators and the libraries keep until the process "
                "exits (destroy_process_group() does not give them back).")


def after_destroy(record: CellRecord) -> list[AfterDestroy]:
    """What each process still holds on its own GPU at its ``destroy_process_group()`` line: the
    pool the framework keeps and what the runtime and NCCL keep past it."""
    ranks = attribution.ranks_by_pid(record)
    own = home_gpus(held_by_gpu(record))
    found = []
    for cp in record.get("checkpoints") or []:
        if not DESTROY.search(cp["label"]):
            continue
        pid = process_of(cp) or record.get("script_pid")
        gpu = own.get(pid) if pid is not None else None
        if pid is None or gpu is None:
            continue
        held = held_on(cp, pid, gpu)
        if held >= STRAY_MIN_BYTES:
            found.append(AfterDestroy(pid, ranks.get(pid), gpu, held, view_sum(cp, "reserved"), in_use(cp), cp["label"]))
    return found
