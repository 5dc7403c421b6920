"""What makes a user's script run under the agent as it runs bare (``python script.py``).

Runs inside the environment: stdlib only, Python 2.7 and 3.5+. The script gets its own
``__main__`` module, finds no module of the agent's in sys.modules, and ends its process with the
exit code a bare run ends with; a forked child reports how it exits (a failing worker is named).
"""
import os
import sys

# The variable a launcher's rank finds its channel to the agent in; the rank takes it out of its
# environment before the script's first line (a bare rank has no variable of ours).
RANK_CHANNEL_VAR = "HARNESS_RANK_CHANNEL"


def report_child_exits(channel):
    """Forked children (multiprocessing's fork workers, os.fork) report how they exit, so a worker
    that fails while the script exits 0 is named with its exit code. Only the child is touched:
    its os._exit reports the code first. Python < 3.7 has no fork hooks: nothing is reported."""
    register = getattr(os, "register_at_fork", None)
    if register is None:
        return

    def in_child():
        real_exit = os._exit
        if getattr(real_exit, "harness_reports", False):
            return  # a grandchild: its parent's wrapper came with the fork

        def _exit(code):
            try:
                channel.send("child-exit", pid=os.getpid(), code=code)
            except Exception:  # the pipe is gone: the cell has ended
                pass
            real_exit(code)
        _exit.harness_reports = True
        os._exit = _exit
    register(after_in_child=in_child)


def hide_own_modules(bare_modules):
    """Take the agent's own modules out of sys.modules (its code keeps its references), so the
    script finds what a bare run has loaded and imports anything else itself, fresh."""
    for name in list(sys.modules):
        if name not in bare_modules:
            del sys.modules[name]


def main_module(path):
    """The script's own ``__main__`` module, as a bare ``python script.py`` makes it: pickling and
    multiprocessing's spawn children look functions up there, and children re-run its file."""
    module = type(sys)("__main__")
    agent_main = sys.modules.get("__main__")
    loader = getattr(agent_main, "__loader__", None)
    module.__dict__.update({"__file__": path, "__package__": None, "__builtins__": agent_main.__builtins__})
    if hasattr(agent_main, "__spec__"):  # Python 3
        module.__dict__.update({"__spec__": None, "__cached__": None})
    if loader is not None and type(loader).__name__ == "SourceFileLoader":
        module.__loader__ = type(loader)("__main__", path)
    return module


def exit_code(exc_info):
    """The exit code a bare ``python script.py`` would end with, its traceback or message printed
    as the interpreter prints it (through the script's own sys.excepthook)."""
    exc_type, exc_value = exc_info[:2]
    if exc_type is None:
        return 0
    if exc_type is SystemExit:
        code = exc_value.code
        if code is None or isinstance(code, int):
            return code or 0
        sys.stderr.write("%s\n" % (code,))
        return 1
    sys.excepthook(*exc_info)
    return 1


def failure_message(exc_info):
    """What a failed script said of its failure, in one line: the exception's message, or for a
    usage error (argparse's SystemExit 2) the line argparse printed ("train.py: error: unrecognized
    arguments: --lr 1e-3"), read from its own frame: its exit code alone says nothing."""
    exc_type, exc_value, tb = exc_info[:3]
    if exc_type is SystemExit:
        while tb is not None:
            frame = tb.tb_frame
            if frame.f_code.co_name == "exit" and frame.f_code.co_filename.endswith("argparse.py"):
                said = frame.f_locals.get("message")
                if said:
                    return "%s (exit code %s)" % (str(said).strip(), exc_value.code)
            tb = tb.tb_next
    return str(exc_value)
