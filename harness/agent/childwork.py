"""Work done in a child process, measured: the parent holds nothing of it once the child exits.

Runs inside the environment (stdlib only, Python 2.7 and 3.5+). A scenario passes a function
that allocates and returns what it made; the child keeps that alive until the parent has taken
its ``peak`` checkpoint, then exits, and the parent takes ``after_child_exit``. The child's
memory counts because it is one of the cell's processes. Python 3 spawns the child (no state
shared with the parent); Python 2.7 has no spawn and forks, which is safe only while the parent
has not imported the framework, as in these scenarios.
"""
TIMEOUT_S = 300  # how long the child keeps its allocation for the parent's peak checkpoint


def _child(target, args, holding, release, said):
    try:
        kept = target(*args)
    except BaseException as exc:  # what stopped it, for the parent's error: its traceback is only in the stderr
        said.put(("%s: %s" % (type(exc).__name__, exc)).splitlines()[0][:300])
        raise
    holding.set()
    release.wait(TIMEOUT_S)
    del kept


def _cause(said):
    """': <the child's exception>' where the child said what stopped it, else ''."""
    try:
        return ": " + said.get(timeout=2)
    except Exception:  # nothing said (killed by a signal, or an exit without an exception)
        return ""


def run_in_child(checkpoint, target, *args):
    import multiprocessing  # here, not at the agent's start: a script's process has none of it until it asks
    get_context = getattr(multiprocessing, "get_context", None)  # absent on Python 2.7: fork
    ctx = get_context("spawn") if get_context is not None else multiprocessing
    checkpoint("ready")
    holding, release, said = ctx.Event(), ctx.Event(), ctx.Queue()
    child = ctx.Process(target=_child, args=(target, args, holding, release, said))
    child.start()
    while not holding.wait(5):  # as long as the child lives: its first CUDA start may JIT-compile for minutes
        if not child.is_alive():  # the cell's timeout bounds the wait
            raise RuntimeError("the child exited with %s before it reported its allocation%s"
                               % (child.exitcode, _cause(said)))
    checkpoint("peak")
    release.set()
    child.join(120)
    checkpoint("after_child_exit")
    if child.exitcode != 0:
        raise RuntimeError("the child exited with %s" % child.exitcode)
