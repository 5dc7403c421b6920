"""Each process of a cell over time, in brief: when the timeline saw it, and on each GPU the most it
held and when.

Checkpoints come from the script's own lines; a process that never reaches one (a worker of
``mp.spawn``, a rank of a command the harness cannot instrument, a DataLoader worker) is seen
only by the timeline's sampling. Keeping each process's peak and last sighting per GPU (not a
series per process: a few numbers each) lets findings about processes and GPUs (a context on
another rank's GPU, a rank that outlives its peers while holding memory) stand without a
checkpoint.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from harness.measurement import procs
from harness.measurement.nvml import Running
from harness.model.processes import ProcessSpan

MAX_PROCESSES = 256  # a cell that starts thousands of short processes keeps those that held GPU memory first


@dataclass
class ProcessSpans:
    spans: dict[int, ProcessSpan] = field(default_factory=dict)

    def add(self, t: float, pids: set[int], running: dict[int, Running | None]) -> None:
        """One sample: ``pids`` alive at ``t``, and what NVML lists on each GPU."""
        for pid in pids:
            span = self.spans.get(pid)
            if span is None:
                span = self.spans[pid] = {"pid": pid, "ppid": procs.parent(pid), "command": procs.command_line(pid, 160),
                                          "first_t": t, "gpus": {}}
            span["last_t"] = t
        for gpu, listed in running.items():
            for pid, used in listed or ():
                if pid not in pids or not used:
                    continue
                spans = self.spans[pid]["gpus"]
                seen = spans.get(str(gpu))
                if seen is None or used > seen["peak"]:
                    seen = spans[str(gpu)] = {"peak": used, "peak_t": t, "last": used, "last_t": t}
                seen["last"], seen["last_t"] = used, t

    def as_record(self) -> list[ProcessSpan]:
        ordered = sorted(self.spans.values(), key=lambda s: (not s["gpus"], s.get("first_t", 0.0), s["pid"]))
        return [{**span, "gpus": dict(sorted(span["gpus"].items()))} for span in ordered[:MAX_PROCESSES]]

