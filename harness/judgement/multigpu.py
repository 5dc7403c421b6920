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
from harness.judgement.ranks import held_by_gpu, held_on, home_gpus, timeline_start
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

    command: str | None = None

    def phrase(self) -> str:
        return (f"{who(self.pid, self.rank, self.command)} held {human_bytes(self.bytes)} on GPU {self.other_gpu}, not its "
                "own (a stray CUDA context)")

    def sentence(self) -> str:
        return (f"{_capital(who(self.pid, self.rank, self.command))} holds {human_bytes(self.bytes)} on GPU "
                f"{self.other_gpu} besides its own GPU {self.own_gpu} ({self.at}): a CUDA context made there before "
                "the process chose its device (CUDA used before `torch.cuda.set_device`, or `torch.load` without "
                "`map_location`); nothing gives it back before the process exits. Call "
                "`torch.cuda.set_device(local_rank)` before any CUDA work.")


def findings(record: CellRecord) -> list[StrayMemory | UnchosenGpu | AfterDestroy | Outlived]:
    """Every multi-GPU finding of a cell: each says itself in a sentence (repro.md, with the fix) and in
    a phrase (the cell's one-line answer)."""
    stray = stray_memory(record)
    return [*stray, *unchosen_gpus(record, {s.pid for s in stray}), *after_destroy(record), *outlived(record)]


@dataclass(frozen=True)
class UnchosenGpu:
    """One process holding memory on a GPU where its framework keeps nothing, its tensors on another:
    a context made there before the script chose its device (a TorchScript model loaded, then moved)."""

    pid: int
    rank: int | None
    gpu: int
    chosen: int
    bytes: int
    at: str
    command: str | None = None

    def phrase(self) -> str:
        return (f"{who(self.pid, self.rank, self.command)} held {human_bytes(self.bytes)} on GPU {self.gpu}, where torch "
                f"keeps nothing (its tensors on GPU {self.chosen}: a stray CUDA context)")

    def sentence(self) -> str:
        return (f"{_capital(who(self.pid, self.rank, self.command))} holds {human_bytes(self.bytes)} on GPU {self.gpu} "
                f"({self.at}), where torch keeps nothing: its tensors are on GPU {self.chosen}. A CUDA context was made "
                f"on GPU {self.gpu} before the script chose GPU {self.chosen} (`torch.jit.load` or `torch.load` without "
                f"`map_location`, or CUDA used before `torch.cuda.set_device({self.chosen})`); nothing gives it back "
                f"before the process exits. Call `torch.cuda.set_device({self.chosen})` first, load with "
                f"`map_location='cuda:{self.chosen}'`, or run with `CUDA_VISIBLE_DEVICES={self.chosen}`.")


def unchosen_gpus(record: CellRecord, said: set[int]) -> list[UnchosenGpu]:
    """Each process (none of ``said``) that held memory on a GPU where torch reserved nothing while it
    reserved memory on another: read where CUDA numbers GPUs as NVML does (no CUDA_VISIBLE_DEVICES)."""
    seen = {**(record.get("env_seen") or {}), **(record.get("harness_env") or {})}
    if "CUDA_VISIBLE_DEVICES" in seen:
        return []
    ranks, commands = attribution.ranks_by_pid(record), _commands(record)
    found: dict[tuple[int, int], UnchosenGpu] = {}
    for cp in record.get("checkpoints") or []:
        reserved = ((cp.get("view") or {}).get("torch") or {}).get("per_device_reserved") or {}
        chosen = [int(d) for d, n in reserved.items() if n]
        pid = process_of(cp) or record.get("script_pid")  # the script's own checkpoints name no PID
        if len(chosen) != 1 or pid is None or pid in said:
            continue
        for p in cp.get("gpu_processes") or []:
            gpu, held = p.get("gpu"), int(p.get("bytes") or 0)
            if p.get("pid") != pid or gpu is None or str(gpu) not in reserved or reserved[str(gpu)] or held < STRAY_MIN_BYTES:
                continue
            if held > (found[(pid, gpu)].bytes if (pid, gpu) in found else 0):
                found[(pid, gpu)] = UnchosenGpu(pid, ranks.get(pid), int(gpu), chosen[0], held, f"at `{cp['label']}`",
                                                commands.get(pid))
    return list(found.values())


def short_findings(record: CellRecord) -> list[str]:
    """Each multi-GPU finding of a cell as a phrase for its one-line answer."""
    return [finding.phrase() for finding in findings(record)]


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def who(pid: int, rank: int | None, command: str | None = None) -> str:
    """A process as a sentence names it: its rank where it said one, a spawned worker as such."""
    if rank is not None:
        return f"rank {rank} (PID {pid})"
    if command and "multiprocessing" in command and ("spawn_main" in command or "--multiprocessing-fork" in command):
        return f"the spawned worker PID {pid}"
    return f"PID {pid}"


def _commands(record: CellRecord) -> dict[int, str]:
    return {span["pid"]: span.get("command") or "" for span in (record.get("timeline") or {}).get("processes") or []}


def stray_memory(record: CellRecord) -> list[StrayMemory]:
    """Each of the cell's processes that held memory on another process's GPU (its own: the one it
    used most)."""
    ranks, commands = attribution.ranks_by_pid(record), _commands(record)
    most = held_by_gpu(record)
    own = home_gpus(most)
    found = []
    for pid, by_gpu in sorted(most.items()):
        # Only where another of the cell's processes has that GPU as its own: one process using two
        # GPUs (DataParallel, a model split by hand) is doing what it was written to do.
        theirs = {g for other, g in own.items() if other != pid}
        for gpu, (held, where) in sorted(by_gpu.items()):
            if gpu != own[pid] and gpu in theirs and held >= STRAY_MIN_BYTES:
                found.append(StrayMemory(pid, ranks.get(pid), own[pid], gpu, held, where, commands.get(pid)))
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

    def phrase(self) -> str:
        return f"{who(self.pid, self.rank)} kept {human_bytes(self.held)} on GPU {self.gpu} after destroy_process_group()"

    def sentence(self) -> str:
        name = who(self.pid, self.rank)
        if self.pool is None:
            return (f"After `{self.at}`, {name} still holds {human_bytes(self.held)} on GPU {self.gpu}: what the CUDA "
                    "context, NCCL and the libraries keep, given back only when the process exits.")
        rest = max(0, self.held - self.pool)
        pool = (f"{human_bytes(self.pool)} in torch's pool ({human_bytes(self.live)} of it live: `del` what holds it, "
                "then `torch.cuda.empty_cache()`)" if self.live else
                f"{human_bytes(self.pool)} in torch's pool (none of it live: `torch.cuda.empty_cache()` returns it)")
        return (f"After `{self.at}`, {name} still holds {human_bytes(self.held)} on GPU {self.gpu}: {pool}, and "
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


OUTLIVED_MIN_S = 2.0  # ranks end a few hundred ms apart when all is well


@dataclass(frozen=True)
class Outlived:
    """A process of a job ended while a peer (a process of the same parent) still held its GPU."""

    ended: str  # who ended, as a sentence names it
    ended_at: float  # seconds into the run
    holder: str
    gpu: int
    held: int  # what the peer held there when last seen
    for_s: float
    killed: bool  # the peer was still there when the cell ended and the harness stopped it

    def phrase(self) -> str:
        return f"{self.holder} held {human_bytes(self.held)} on GPU {self.gpu} {self.for_s:.1f} s after its peer ended"

    def sentence(self) -> str:
        until = ("and was still there when the cell ended (the harness stopped it): a rank blocked in a collective "
                 "whose peer has gone waits for NCCL's timeout, holding its GPU all the while" if self.killed else
                 "until it ended: the job's memory is back only when its last process ends")
        return (f"{_capital(self.ended)} ended {self.ended_at:.1f} s into the run while {self.holder} "
                f"still held {human_bytes(self.held)} on GPU {self.gpu}, for {self.for_s:.1f} s more, {until}.")


def outlived(record: CellRecord) -> list[Outlived]:
    """Each process that held GPU memory past the end of a peer (one that held GPU memory too), by
    more than ``OUTLIVED_MIN_S``: named against the first of its peers to end. From the timeline's
    per-process sightings, so ranks of any launcher and spawned workers alike."""
    timeline, start = record.get("timeline") or {}, timeline_start(record)
    holders = [s for s in timeline.get("processes") or []
               if s.get("last_t") is not None and any(g["peak"] >= STRAY_MIN_BYTES for g in (s.get("gpus") or {}).values())]
    if start is None or len(holders) < 2:
        return []
    ranks, killed = attribution.ranks_by_pid(record), {k.get("pid") for k in record.get("killed") or []}
    found = []
    for peer in holders:
        home, seen = max((peer.get("gpus") or {}).items(), key=lambda item: item[1]["peak"])
        ended = [s for s in holders if s is not peer and s.get("ppid") == peer.get("ppid")
                 and seen["last_t"] - float(s["last_t"]) >= OUTLIVED_MIN_S]
        if not ended or seen["last"] < STRAY_MIN_BYTES:
            continue
        first = min(ended, key=lambda s: float(s["last_t"]))
        found.append(Outlived(who(first["pid"], ranks.get(first["pid"]), first.get("command")),
                              float(first["last_t"]) - start, who(peer["pid"], ranks.get(peer["pid"]), peer.get("command")),
                              int(home), seen["last"], seen["last_t"] - float(first["last_t"]), peer["pid"] in killed))
    return found
