"""The one way this tool starts and stops a child process.

Each child gets its own process group (a new session), so stopping it stops everything it
started; stopping escalates terminate -> kill. Ctrl-C in the harness ends up in ``stop`` via the
caller's ``finally``, so nothing is left running.
"""
from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import IO, Any

from harness.measurement import procs


def start(
    argv: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    stdout: int | IO[Any] | None = None,
    stderr: int | IO[Any] | None = None,
    cwd: str | None = None,
) -> subprocess.Popen[bytes]:
    """Start ``argv`` in a new session (its own process group), stdin closed."""
    return subprocess.Popen(
        list(argv),
        env=dict(env) if env is not None else None,
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=stderr,
        cwd=cwd,
        start_new_session=True,
    )


_running: set[subprocess.Popen[bytes]] = set()  # started by ``run``, not yet done: stop_running ends them
_running_lock = threading.Lock()


def run(
    argv: Sequence[str], *, timeout: float, env: Mapping[str, str] | None = None, cwd: str | None = None,
    on_line: Callable[[str], None] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` to completion (output captured as text); past ``timeout`` its whole group is killed.
    ``on_line`` sees each line of the output as it comes (a long install says what it is doing).

    Raises subprocess.TimeoutExpired after the kill, like subprocess.run.
    """
    proc = start(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=cwd)
    with _running_lock:
        _running.add(proc)
    try:
        out = proc.communicate(timeout=timeout)[0] if on_line is None else _streamed(proc, timeout, on_line)
    except BaseException:
        stop(proc)
        raise
    finally:
        with _running_lock:
            _running.discard(proc)
    return subprocess.CompletedProcess(list(argv), proc.returncode, out.decode("utf-8", "replace"), "")


def _streamed(proc: subprocess.Popen[bytes], timeout: float, on_line: Callable[[str], None]) -> bytes:
    """The output, each line handed to ``on_line`` as it arrives; past ``timeout`` the group is
    stopped (its pipe then ends) and TimeoutExpired raised."""
    expired = threading.Event()

    def expire() -> None:
        expired.set()
        stop(proc, grace=1.0)

    timer = threading.Timer(timeout, expire)
    timer.daemon = True
    timer.start()
    lines = []
    try:
        assert proc.stdout is not None
        for raw in iter(proc.stdout.readline, b""):
            lines.append(raw)
            on_line(raw.decode("utf-8", "replace").rstrip("\n"))
        proc.wait()
    finally:
        timer.cancel()
        if proc.stdout is not None:
            proc.stdout.close()
    if expired.is_set():
        raise subprocess.TimeoutExpired(list(proc.args) if isinstance(proc.args, list) else str(proc.args), timeout)
    return b"".join(lines)


def stop_running() -> None:
    """End every child that ``run`` is waiting on, in any thread (its wait then returns at once):
    a Ctrl-C while environments are made in worker threads, which never see the KeyboardInterrupt."""
    with _running_lock:
        procs_now = list(_running)
    for proc in procs_now:
        stop(proc, grace=1.0)


def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def stop(proc: subprocess.Popen[bytes], *, grace: float = 2.0, extra_pids: set[int] | None = None) -> None:
    """Stop ``proc``, its process group and any ``extra_pids`` that escaped the group.

    SIGTERM first, SIGKILL after ``grace`` seconds; returns once the child is reaped.
    """
    pgid = proc.pid  # start_new_session: the child leads its own group
    strays = set(extra_pids or ())
    for sig in (signal.SIGTERM, signal.SIGKILL):
        _signal_group(pgid, sig)
        for pid in strays:
            try:
                os.kill(pid, sig)
            except (ProcessLookupError, PermissionError):
                pass
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            if proc.poll() is not None and not any(procs.alive(pid) for pid in strays):
                break
            time.sleep(0.02)
        else:
            continue
        break
    _signal_group(pgid, signal.SIGKILL)  # members of the group that outlived the leader
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        pass
