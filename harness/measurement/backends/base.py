"""The contract between orchestration and a backend."""
from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from harness import frameworks
from harness.measurement.scenario import Scenario

AGENT_DIR = Path(__file__).resolve().parents[2] / "agent"
AGENT_SCRIPT = "agent.py"
REAPER_SCRIPT = "reaper.py"
STDERR_TAIL_BYTES = 8192
VERSION_CODE = "import sys; print('%d.%d' % sys.version_info[:2])"  # what python_version() runs: 2.7 and 3 alike

# Set while a run is being stopped (Ctrl-C, SIGTERM): a cell whose start was already in flight
# (a container being created, a process being spawned) ends itself at once instead of outliving it.
closing = threading.Event()


class CellRefused(KeyboardInterrupt):
    """A cell that would have started while its run is being stopped."""


class EngineLost(Exception):
    """The engine that runs the cells stopped answering: no cell of this backend can start now."""


class GpuRefused(Exception):
    """The engine refused the cell's GPU request: the message names the way out."""


@dataclass(frozen=True, kw_only=True)
class CellSpec:
    """Everything a backend needs to start one cell."""

    run_id: str
    cell_id: str
    env_name: str
    scenario: Scenario
    nonce: str
    params: dict[str, Any]
    env_vars: dict[str, str]
    ack_dir: Path
    log_path: Path
    timeout: float
    gpu_index: int | None = None
    gpu_indices: tuple[int, ...] = ()  # the GPUs a bug report's script sees, where more than gpu_index
    all_gpus: bool = False  # gpu_indices are every GPU of the host
    labels: dict[str, str] = field(default_factory=dict)
    events_dir: Path | None = None  # where the script's spawned workers leave their checkpoints (agent/spawned.py)

    def gpu_pin(self) -> dict[str, str]:
        """What the harness sets so CUDA sees the cell's GPUs, in NVML's PCI order: the cell's one
        GPU, or the GPUs a script was given; nothing where the user set CUDA_VISIBLE_DEVICES or the
        script was given every GPU of the host (it then sees what a bare run sees)."""
        if self.gpu_index is None or "CUDA_VISIBLE_DEVICES" in self.env_vars or self.all_gpus:
            return {}
        visible = self.gpu_indices or (self.gpu_index,)
        return {"CUDA_DEVICE_ORDER": "PCI_BUS_ID", "CUDA_VISIBLE_DEVICES": ",".join(str(i) for i in visible)}

    def agent_spec(self, *, scenario_path: str, ack_dir: str, ipython: str | None = None,
                   events: str | None = None) -> dict[str, Any]:
        """The JSON the agent receives; paths as the agent will see them (``ipython``: the folder of
        IPython the host prepared for a notebook, where the environment has none of its own)."""
        notebook = {"cells": list(self.scenario.cells) if self.scenario.cells else None, "ipython": ipython}
        return {
            "nonce": self.nonce,
            "scenario": scenario_path,
            "params": self.params,
            "ack_dir": ack_dir,
            "ack_timeout": self.timeout,
            "mode": self.scenario.mode,
            "asked_env": sorted(self.env_vars),  # reported back whatever their names
            "memory_env": list(frameworks.memory_variables()),
            "frameworks": list(frameworks.recorded_imports()),
            **({"argv": list(self.scenario.argv)} if self.scenario.argv else {}),
            **({"launch": list(self.scenario.launch)} if self.scenario.launch else {}),
            **({"notebook": notebook} if self.scenario.notebook else {}),
            **({"events": events} if events else {}),  # the runner gives a folder where workers are followed
        }


class RunningCell(Protocol):
    facts: dict[str, Any]

    def lines(self) -> Iterable[str]:
        """The agent's protocol stream, line by line, ending when the agent's stdout closes."""

    def root_pid(self) -> int | None:
        """The host PID at the root of the cell's process tree (None once gone)."""

    def wait(self, timeout: float) -> int | None:
        """The exit code, waiting up to ``timeout`` s; None while still running."""

    def stop(self, extra_pids: set[int]) -> None:
        """End the cell and everything it started; idempotent; never raises."""

    def stderr_tail(self) -> str:
        """The last few KiB of the cell's stderr (the scenario's own output included)."""

    def lost(self) -> str | None:
        """Why the backend lost the cell (its engine stopped answering), or None: a cell that ended
        badly is then the harness's failure, not the script's."""


class Backend(Protocol):
    name: str
    ipython: Path | None  # IPython for this environment's Python, for notebooks (environments/ipython_site.py)

    def python_version(self) -> str | None:
        """The environment's Python as ``3.11`` (asked of it), or None when it does not answer."""

    def describe(self) -> dict[str, Any]:
        """Facts of the backend for the record (interpreter, image, GPU mode...)."""

    def start(self, spec: CellSpec) -> RunningCell:
        """Start the agent for ``spec``; on failure nothing is left running."""


def agent_argv(python: str, agent_dir: str, spec_json: str) -> list[str]:
    """The agent's command line, ``agent_dir`` as the cell sees it (-u is the protocol's)."""
    return [python, "-B", "-u", f"{agent_dir}/{AGENT_SCRIPT}", spec_json]


def reaper_argv(python: str, agent_dir: str, nonce: str, agent: list[str], site: bool = False) -> list[str]:
    """``agent`` under the cell's reaper (the same interpreter, without site: stdlib is all it needs;
    ``site``: with it, where the stdlib is found through site, as in a Python 2 virtualenv)."""
    return [python, *([] if site else ["-S"]), "-B", f"{agent_dir}/{REAPER_SCRIPT}", nonce, *agent]


def tail(path: Path, limit: int = STDERR_TAIL_BYTES) -> str:
    try:
        with open(path, "rb") as handle:
            handle.seek(0, 2)
            size = handle.tell()
            handle.seek(max(0, size - limit))
            return handle.read().decode("utf-8", "replace")
    except OSError:
        return ""
