"""The parent of a cell's agent: keeps every process the script starts, however detached, findable.

Run as ``python -S -B reaper.py NONCE AGENT_ARGV...``. It makes itself a child subreaper
(``prctl(PR_SET_CHILD_SUBREAPER)``; in a container it is PID 1, which is one anyway), so a
process that leaves the script's tree (``setsid``, a double fork, stdout and stderr closed) comes
back to it instead of to init: the harness finds it below this process, names it and kills it.
When the agent (the script's own process) exits, its exit code goes out as a protocol line on
the cell's stdout at once, so the cell ends with the script and not with the last process still
holding a pipe. It then reaps orphans until none is left. It holds no copy of the cell's pipes
but that one line's, and starts nothing in the script's process: the script runs as it would
bare, one parent up.

Runs under the environment's own interpreter: Python 2.7 and 3.5+, stdlib only.
"""
import errno
import fcntl
import json
import os
import sys
import time

PR_SET_CHILD_SUBREAPER = 36  # linux/prctl.h


def become_subreaper():
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except Exception:  # no ctypes in a minimal image: as PID 1 of a container orphans come here anyway
        pass


def private_copy(fd):
    """A duplicate of ``fd`` that no exec'd program inherits (FD_CLOEXEC, Python 2 and 3 alike)."""
    copy = os.dup(fd)
    fcntl.fcntl(copy, fcntl.F_SETFD, fcntl.fcntl(copy, fcntl.F_GETFD) | fcntl.FD_CLOEXEC)
    return copy


def exit_code(status):
    """``os.wait`` status as subprocess writes it: the code, or minus the signal."""
    if os.WIFSIGNALED(status):
        return -os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


def wait_any():
    """(pid, status) of the next child to end; None when there is no child left."""
    while True:
        try:
            return os.wait()
        except OSError as exc:  # Python 2 does not retry EINTR itself
            if exc.errno == errno.ECHILD:
                return None
            if exc.errno != errno.EINTR:
                raise


def main(argv):
    nonce, agent_argv = argv[1], argv[2:]
    become_subreaper()
    report = private_copy(1)
    agent = os.fork()
    if agent == 0:
        os.close(report)
        try:
            os.execvp(agent_argv[0], agent_argv)
        finally:
            os._exit(127)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):  # the pipes stay with the script's processes alone: their end is its end
        os.dup2(devnull, fd)
    os.close(devnull)
    code = 1
    while True:
        ended = wait_any()
        if ended is None:
            break
        if ended[0] == agent:
            code = exit_code(ended[1])
            line = json.dumps({"nonce": nonce, "event": "exit", "code": code, "pid": agent, "t": time.time()})
            try:
                os.write(report, (line + "\n").encode("utf-8"))
            except OSError:
                pass  # nobody reads any more: the harness has gone
            os.close(report)
    os._exit(code if code >= 0 else 128 - code)


if __name__ == "__main__":
    main(sys.argv)
