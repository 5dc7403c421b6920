"""The process backend: the agent under a local interpreter, one fresh process per cell.

For GPU hosts without Docker, virtualenv environments and development. The cell is a new
process session under the cell's reaper (harness/agent/reaper.py), a child subreaper: whatever
the script starts stays below it however it detaches, and stopping the cell kills the whole
group and every descendant that left it.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.common.errors import EnvironmentNotFound
from harness.measurement import procs, subproc
from harness.measurement.backends.base import (
    AGENT_DIR,
    VERSION_CODE,
    CellRefused,
    CellSpec,
    agent_argv,
    closing,
    reaper_argv,
    tail,
)
from harness.measurement.backends.capped_log import CappedLog, pump
from harness.measurement.protocol import split_lines

_live: set[ProcessCell] = set()
_live_lock = threading.Lock()


def stop_live_processes() -> None:
    """End every cell still running (Ctrl-C in a matrix run: worker threads get no signal)."""
    with _live_lock:
        cells = list(_live)
    for cell in cells:
        cell.stop(set())


def resolve_python(python: str) -> str:
    """The interpreter's absolute path; a one-line error when there is none."""
    found = shutil.which(python) if os.sep not in python else (python if os.access(python, os.X_OK) else None)
    if not found:
        raise EnvironmentNotFound(f"interpreter not found: {python!r} (install it, or pass --python with a path to one)")
    return os.path.abspath(found)


@dataclass(eq=False)
class ProcessCell:
    proc: subprocess.Popen[bytes]
    spec: CellSpec
    log_pump: threading.Thread  # the scenario's output into its capped log
    facts: dict[str, Any] = field(default_factory=dict)

    def lines(self) -> Iterator[str]:
        stream = self.proc.stdout
        assert stream is not None
        try:  # closed by its reader at end-of-file, never under it (see stop)
            yield from split_lines(iter(lambda: stream.read1(65536), b""))  # type: ignore[attr-defined]
        finally:
            stream.close()

    def root_pid(self) -> int | None:
        return self.proc.pid if self.proc.poll() is None else None

    def wait(self, timeout: float) -> int | None:
        try:
            return self.proc.wait(timeout=max(timeout, 0.0))
        except subprocess.TimeoutExpired:
            return None

    def stop(self, extra_pids: set[int]) -> None:
        # Everything below the reaper now, however it detached: a Ctrl-C stops cells whose
        # processes the tracker never saw, and they must not reach init and live on.
        extra = extra_pids | procs.descendants(self.proc.pid)
        subproc.stop(self.proc, extra_pids=extra - {self.proc.pid})
        # Every process of the cell is gone, so its pipes reach end-of-file and both readers end.
        # Never close a pipe under its reader: the close waits for the read, which waits for the
        # last writer; one that escaped would hold the run for as long as it lives.
        self.log_pump.join(5.0)
        with _live_lock:
            _live.discard(self)

    def stderr_tail(self) -> str:
        return tail(self.spec.log_path)

    def lost(self) -> str | None:
        return None  # the host's processes have no engine to lose


HOST_ONLY = ("PYTHONPATH", "PYTHONHOME")  # where this host's Python finds its modules: never a made virtualenv's


@dataclass
class ProcessBackend:
    python: str = "python3"
    name: str = "process"
    ipython: Path | None = None
    site: bool = False  # the reaper keeps site: a Python 2 virtualenv finds its stdlib through it
    # the environment's own library folders (a virtualenv's CUDA wheels), first on LD_LIBRARY_PATH as an
    # image's ENV puts its own; after the user's --setenv value where one is given
    library_path: str = ""
    cuda_aliases: tuple[str, ...] = ()  # older sonames it links to those wheels' newer ones (venv_cuda.ALIASES)
    cuda_path: str = ""  # its CUDA wheel whose headers the release compiles with: CUDA_PATH, unless the user sets one
    cuda_libraries: tuple[str, ...] = ()  # CUDA libraries fetched from Ubuntu's packages or a wheel (venv_libs)
    sources: dict[str, Any] = field(default_factory=dict)  # the index a virtualenv's packages came from (venvs.sources_of)

    def __post_init__(self) -> None:
        self.python = resolve_python(self.python)

    def python_version(self) -> str | None:
        try:
            done = subproc.run([self.python, "-S", "-c", VERSION_CODE], timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    def describe(self) -> dict[str, Any]:
        """What the record says of where the cell ran: a virtualenv is made from no base image."""
        venv = {"base": None, "library_path": self.library_path or None,
                **({"cuda_aliases": list(self.cuda_aliases)} if self.cuda_aliases else {}),
                **({"cuda_path": self.cuda_path} if self.cuda_path else {}),
                **({"cuda_libraries": list(self.cuda_libraries)} if self.cuda_libraries else {}),
                **self.sources} if self.name == "venv" else {}  # the index used replaces the one asked for
        return {"backend": self.name, "interpreter": self.python, **venv}

    def environment(self, asked: dict[str, str]) -> dict[str, str]:
        """The cell's variables: this host's, the user's (``asked``), and the environment's own library path. A
        virtualenv the tool made from pins runs its own packages: the host's PYTHONPATH and PYTHONHOME (another
        Python's, perhaps another torch) are not passed to it unless asked for with --setenv."""
        host = {k: v for k, v in os.environ.items() if self.name != "venv" or k not in HOST_ONLY}
        env = {**host, **asked}
        if self.library_path:
            given = asked.get("LD_LIBRARY_PATH")
            parts = (given, self.library_path) if given else (self.library_path, os.environ.get("LD_LIBRARY_PATH"))
            env["LD_LIBRARY_PATH"] = ":".join(part for part in parts if part)
        if self.cuda_path and "CUDA_PATH" not in asked:  # the host's own, of another CUDA, is not this release's
            env["CUDA_PATH"] = self.cuda_path
        return env

    def start(self, spec: CellSpec) -> ProcessCell:
        agent_spec = spec.agent_spec(scenario_path=str(spec.scenario.path), ack_dir=str(spec.ack_dir),
                                     ipython=str(self.ipython) if self.ipython else None,
                                     events=str(spec.events_dir) if spec.events_dir else None)
        env = self.environment(dict(spec.env_vars))  # the variables a bare run sees in it (-u is the agent's)
        env.update(spec.gpu_pin())  # NVML numbers GPUs in PCI order; CUDA agrees, so both name the same GPUs
        log = CappedLog(spec.log_path)
        try:
            proc = subproc.start(
                reaper_argv(self.python, str(AGENT_DIR), spec.nonce,
                            agent_argv(self.python, str(AGENT_DIR), json.dumps(agent_spec)), site=self.site),
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        except BaseException:
            log.close()
            raise
        assert proc.stderr is not None
        cell = ProcessCell(proc, spec, pump(proc.stderr, log), facts=self.describe())
        with _live_lock:
            _live.add(cell)
        if closing.is_set():  # the run was stopped while this process was being started
            cell.stop(set())
            raise CellRefused
        return cell
