"""The script's processes in repro.md: each named once above the table, by its rank or PID and the
command it runs as the user would type it, and in each row by that name alone with its memory.

The commands are shown without the tool's own wrapping (a launcher's rank runs ``python rank.py
SCRIPT``; a spawned worker ``python spawned.py SPEC``) and without this machine's folders, so a
two-rank job's table stays readable and names no path of the machine it ran on.
"""
from __future__ import annotations

import shlex
from pathlib import Path

from harness.common.units import human_bytes
from harness.judgement import attribution
from harness.model.processes import GpuProcess
from harness.model.record import CellRecord, Checkpoint

WRAPPERS = ("rank.py", "agent.py", "reaper.py")  # the tool's own scripts before the user's in a command line


def command(text: str) -> str:
    """``python train.py --epochs 1`` for ``/env/bin/python /opt/harness/agent/rank.py /opt/.../train.py --epochs 1``."""
    try:
        words = shlex.split(text)
    except ValueError:
        words = text.split()
    if any(Path(w).name == "spawned.py" for w in words):
        return "a spawned worker (multiprocessing's spawn)"
    ours = [i for i, w in enumerate(words) if Path(w).name in WRAPPERS and ("/harness/agent/" in w or "/opt/harness/" in w)]
    kept = [w for i, w in enumerate(words) if i not in ours and not (ours and i < ours[0] and w in ("-B", "-u", "-S"))]
    short = [Path(w).name if "/" in w and not w.startswith("-") else w for w in kept]
    return shlex.join(short)[:100]


def _name(pid: int, ranks: dict[int, int]) -> str:
    return f"rank {ranks[pid]}" if pid in ranks else f"PID {pid}"


def legend(record: CellRecord) -> str:
    """``Processes: rank 0 = PID 812, `python train.py --epochs 1`; ...``: each process of the cell that
    held GPU memory, once; '' where there is only the script's own."""
    ranks = attribution.ranks_by_pid(record)
    seen: dict[int, str] = {}
    for cp in record.get("checkpoints") or []:
        for p in cp.get("gpu_processes") or []:
            if p.get("in_cell") and p.get("bytes") and p.get("pid") is not None:
                seen.setdefault(int(p["pid"]), str(p.get("command") or "?"))
    if len(seen) < 2 and not attribution.launched(record):
        return ""
    script = record.get("script_pid")
    if script in seen:  # the agent's process is the script's: named by the command the user gave
        seen[script] = str((record.get("scenario") or {}).get("command") or "the script")
    said = [f"{_name(pid, ranks)}{f' = PID {pid}' if pid in ranks else ''}, `{command(text)}`"
            for pid, text in sorted(seen.items(), key=lambda item: (item[0] not in ranks, ranks.get(item[0], 0), item[0]))]
    return "Processes: " + "; ".join(said) + "." if said else ""


def cell(cp: Checkpoint, record: CellRecord, pid: int | None) -> str:
    """The other processes' (or, for a launched job, every process's) memory at ``cp``, by name."""
    ranks = attribution.ranks_by_pid(record)
    if attribution.launched(record):
        shown: list[GpuProcess] = [p for p in cp.get("gpu_processes") or [] if p.get("in_cell") and p.get("bytes")]
    else:
        shown = [p for p in attribution.other_processes(cp, pid)[1] if p.get("bytes")]

    def one(p: GpuProcess) -> str:
        where = f" on GPU {p['gpu']}" if p.get("gpu") is not None else ""
        return f"{_name(int(p['pid']), ranks)}{where}: {human_bytes(p.get('bytes'))}"
    return ", ".join(one(p) for p in shown) or "-"
