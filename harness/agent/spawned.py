"""Workers the script starts with multiprocessing's spawn method (``torch.multiprocessing.spawn``, a
``get_context("spawn")`` Pool or Process, a ProcessPoolExecutor on spawn): each runs the script's
functions with their checkpoints, labelled by rank or worker, as a launcher's ranks are.

Runs INSIDE the environment: stdlib only, Python 3.4+ (Python 2 has no spawn method; nothing is
installed there). Two halves:

* In the script's process, ``install`` puts one finder in ``sys.meta_path`` (no module, no thread,
  no variable): when ``multiprocessing.spawn`` is first imported, by the script or a framework, its
  ``get_command_line`` is wrapped so a worker starts as ``python spawned.py SPEC --multiprocessing-fork``
  instead of ``python -c "...spawn_main(...)" --multiprocessing-fork``.
* In the worker, ``main`` puts back the argv a spawned worker has, hides its own modules, and
  runs ``spawn_main`` with the script re-run (as ``__mp_main__``) from its instrumented code.
  Checkpoints go to the host as event files in the cell's events folder (written whole, then
  renamed), answered with ``ack-<seq>`` files as the script's own are.
"""
import sys

if __name__ == "__main__":  # a worker: what `-c "from multiprocessing.spawn import spawn_main; ..."` has loaded
    import multiprocessing.spawn  # noqa: F401
WORKER_MODULES = frozenset(sys.modules)

import json  # noqa: E402  (after the snapshot above)
import os  # noqa: E402
import time  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
TARGET = "multiprocessing.spawn"


class FileChannel(object):
    """A worker's end of the protocol: an event file per event, an ack file back per checkpoint."""

    def __init__(self, spec):
        self.nonce, self.events, self.ack_dir = spec["nonce"], spec["events"], spec["ack_dir"]
        self.ack_timeout = float(spec.get("ack_timeout", 600))
        self.seq = 0
        self.pid = os.getpid()
        self.gone = False  # the cell has ended: the host measures no more (its ack folder is gone)

    def send(self, event, **fields):
        self.seq += 1
        fields.update(nonce=self.nonce, event=event, t=time.time(), pid=self.pid, spawned=True)
        if event == "checkpoint":
            fields["seq"] = "p%d-%d" % (self.pid, self.seq)
        name = os.path.join(self.events, "%d-%06d.json" % (self.pid, self.seq))
        with open(name + ".tmp", "w") as handle:
            handle.write(json.dumps(fields, sort_keys=True))
        os.rename(name + ".tmp", name)

    def wait_ack(self, seq):
        path = os.path.join(self.ack_dir, "ack-p%d-%d" % (self.pid, seq))
        deadline = time.time() + self.ack_timeout
        while not os.path.exists(path):
            if time.time() > deadline or not os.path.isdir(self.ack_dir):
                self.gone = True  # a worker that outlives its cell runs on unmeasured, never failed by us
                return
            time.sleep(0.002)


def who(process=None):
    """``rank 1`` for torch.multiprocessing.spawn's process i (or a RANK the worker was given), else
    ``worker N`` by its multiprocessing identity. Asked only in multiprocessing's workers (it is loaded)."""
    process = process or sys.modules["multiprocessing"].current_process()
    target, args = getattr(process, "_target", None), getattr(process, "_args", ()) or ()
    if getattr(target, "__module__", "") == "torch.multiprocessing.spawn" and len(args) > 1:
        return "rank", args[1]
    if os.environ.get("RANK", "").isdigit():
        return "rank", int(os.environ["RANK"])
    identity = getattr(process, "_identity", ()) or (os.getpid(),)
    return "worker", identity[-1]


class Hook(object):
    """The finder that wraps ``multiprocessing.spawn.get_command_line`` once the module is loaded."""

    def __init__(self, spec):
        self.spec = spec

    def find_spec(self, name, path, target=None):
        if name != TARGET:
            return None
        sys.meta_path.remove(self)  # once: the module is loaded this time
        for finder in sys.meta_path:
            found = getattr(finder, "find_spec", None) and finder.find_spec(name, path, target)
            if found is not None and found.loader is not None and hasattr(found.loader, "exec_module"):
                run, spec = found.loader.exec_module, self.spec

                def exec_module(module):
                    run(module)
                    wrap(module, spec)
                found.loader.exec_module = exec_module
                return found
        return None


def wrap(module, spec):
    own = module.get_command_line

    def get_command_line(**kwds):
        line = own(**kwds)
        if "-c" not in line or getattr(sys, "frozen", False):
            return line
        cut = line.index("-c")
        given = dict(spec, spawn=kwds)
        return line[:cut] + ["-B", os.path.join(HERE, "spawned.py"), json.dumps(given)] + line[cut + 2:]
    module.get_command_line = get_command_line


def report(channel, view, label, process=None):
    """One checkpoint of a worker, labelled by its rank or number, measured by the host and answered."""
    kind, number = who(process)
    fields = {"label": "%s %s: %s" % (kind, number, label), "view": view.collect(),
              "frameworks": view.imported_versions()}
    if kind == "rank":
        fields["rank"] = number
    channel.send("checkpoint", **fields)
    channel.wait_ack(channel.seq)


def forked(spec, view):
    """The checkpoint of a worker multiprocessing forked from the script's process (a fork Pool's, a
    DataLoader's): the instrumented code it inherited reports on a channel of its own. A bare
    ``os.fork`` child (a daemon on its way to exec) takes none, as it would take none bare."""
    channels = {}

    def checkpoint(label):
        multiprocessing = sys.modules.get("multiprocessing")
        process = multiprocessing.current_process() if multiprocessing is not None else None
        if not getattr(process, "_identity", ()):  # a bare os.fork child (a daemon on its way to exec): as bare
            return
        pid = os.getpid()
        channel = channels.get(pid) or channels.setdefault(pid, FileChannel(spec))
        if not channel.gone:
            report(channel, view, label)
    return checkpoint


def install(spec):
    """In the script's process, before its first line: workers it spawns will report their checkpoints."""
    if sys.version_info >= (3, 4) and spec.get("events"):
        sys.meta_path.insert(0, Hook(spec))


def _instrumented_main(spec, channel):
    """``multiprocessing.spawn._fixup_main_from_path`` as the worker's: the script re-run as
    ``__mp_main__`` from its instrumented code, with the checkpoint the instrumented lines call."""
    import types

    import agent
    import instrument
    import sampled

    agent.framework_view.know(spec.get("frameworks"))

    rerun = []  # set while the script's module level runs again (its imports): no worker's checkpoint yet

    def checkpoint(label, skipped=None, baseline=False, frame=None, process=None, **_):  # search, sizes: the script's own
        if not rerun and not channel.gone:
            report(channel, agent.framework_view, label, process)

    def fixup(main_path):
        current = sys.modules["__main__"]
        if main_path != os.path.normpath(spec["script"]) or getattr(current, "__file__", None) == main_path:
            return original(main_path)
        with open(main_path) as handle:
            code, _, sites = instrument.instrument_sites(handle.read(), main_path, agent.framework_view.FRAMEWORKS)
        spawn.old_main_modules.append(current)
        module = types.ModuleType("__mp_main__")
        module.__dict__.update(__file__=main_path, __builtins__=__builtins__, __package__=None, __spec__=None,
                               __cached__=None)
        setattr(module, instrument.CHECKPOINT_NAME, sampled.numbered(checkpoint, sites))
        sys.modules["__main__"] = sys.modules["__mp_main__"] = module
        rerun.append(True)
        try:
            exec(code, module.__dict__)
        finally:
            del rerun[:]

    import multiprocessing.process
    import multiprocessing.spawn as spawn
    original = spawn._fixup_main_from_path
    spawn._fixup_main_from_path = fixup
    base = multiprocessing.process.BaseProcess
    bootstrap = base._bootstrap

    def started(self, *args, **kwargs):
        """The worker's floor, its target about to run (the script's imports done): ``rank 0: start``."""
        base._bootstrap = bootstrap  # once, and gone before the script's code runs
        if getattr(sys.modules.get("__main__"), instrument.CHECKPOINT_NAME, None) is not None:
            checkpoint("start", process=self)
        return bootstrap(self, *args, **kwargs)
    base._bootstrap = started
    return spawn


def main(argv):
    spec = json.loads(argv[1])
    sys.argv = ["-c", "--multiprocessing-fork"]  # what a spawned worker's argv is
    if sys.path and sys.path[0] == HERE:
        sys.path[0] = ""  # a `-c` worker's first entry (spawn_main then takes the parent's sys.path)
    sys.path.append(HERE)
    spawn = _instrumented_main(spec, FileChannel(spec))
    sys.path.remove(HERE)
    for name in set(sys.modules) - WORKER_MODULES:
        del sys.modules[name]  # ours: the script finds what a bare worker has loaded, and imports the rest itself
    sys.dont_write_bytecode = bool(os.environ.get("PYTHONDONTWRITEBYTECODE"))  # -B was ours
    spawn.spawn_main(**spec["spawn"])


if __name__ == "__main__":
    main(sys.argv)
