"""The agent: runs one scenario inside its environment and stops at every checkpoint.

This file runs INSIDE the environment (a container, a virtualenv, any interpreter), on the
oldest Python there: stdlib only, Python 2.7 and 3.5+. It is mounted read-only and never
imported by the host package.

Fidelity: a user's script (repro) must behave as it does under a bare ``python script.py``. The
agent starts no framework and no device runtime, runs no thread of its own, and before the
script's first line puts back what a bare run has: the script as ``sys.modules["__main__"]``
(so spawn children and pickling find its functions), ``sys.path[0]`` its folder, and no agent
module in ``sys.modules``. Forked children's exits are reported (a failing worker is never hidden).

Wire protocol (the host side is harness/measurement/protocol.py):
  * agent -> host: one JSON object per line on the ORIGINAL stdout, each carrying the cell's nonce. The
    scenario's own stdout goes to stderr at the file-descriptor level: nothing it prints interleaves.
  * host -> agent: an acknowledgement is a file ``ack-<seq>`` the host creates in the ack folder (read-only
    for us) once it has measured: the same for a local process and a container, and no stdin needed.

Usage: python agent.py SPEC_JSON   (spec: nonce, scenario, params, ack_dir, ack_timeout; frameworks and
memory_env: the import names and variables the host's framework registry names)
"""
import sys

# What a bare `python script.py` has loaded at this point; a user's script must find no more (the
# agent's own modules are taken out of sys.modules before it runs: see hide_own_modules).
BARE_MODULES = frozenset(sys.modules)

import json  # noqa: E402  (after the snapshot above)
import os  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import as_bare  # noqa: E402  (lives beside this file)
import childwork  # noqa: E402
import sampled  # noqa: E402  (a module kept by name: Python 2 empties a module's globals once it is unreferenced)
import framework_view  # noqa: E402
import garbage  # noqa: E402


class Unsupported(Exception):
    """Raised by a scenario when an API it needs does not exist in this version."""


class HarnessFault(Exception):
    """The harness, not the scenario, failed: the scenario file could not be read here."""


class Channel(object):
    """The agent's end of the protocol: tagged lines out, acknowledgement files in."""

    def __init__(self, nonce, ack_dir, ack_timeout, out):
        self.nonce, self.ack_dir, self.ack_timeout, self.out, self.seq = nonce, ack_dir, ack_timeout, out, 0

    def send(self, event, **fields):
        fields["nonce"] = self.nonce
        fields["event"] = event
        fields["t"] = time.time()
        data = (json.dumps(fields, sort_keys=True) + "\n").encode("utf-8")
        fd = self.out.fileno()
        while data:  # raw writes: usable from a forked child, whatever its copy of a buffer holds
            data = data[os.write(fd, data):]

    def wait_ack(self, seq):
        """Block until the host has measured checkpoint ``seq``."""
        path = os.path.join(self.ack_dir, "ack-%d" % seq)
        deadline = time.time() + self.ack_timeout
        while not os.path.exists(path):
            if time.time() > deadline:
                raise RuntimeError("host did not acknowledge checkpoint %d in %ss" % (seq, self.ack_timeout))
            time.sleep(0.002)


def detach_stdio():
    """Keep the real stdout for the protocol; send the scenario's stdout to stderr (dup2: child processes and
    C extensions inherit it too). stdin becomes /dev/null: the scenario has nothing to read there."""
    sys.stdout.flush()
    proto_fd = os.dup(1)
    os.dup2(2, 1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    return os.fdopen(proto_fd, "w")


def memory_environment(environ, known=(), asked=()):
    """The variables the cell sees that change GPU memory (``known``: the host's registry names
    them), and every one the user set with --setenv: a run must never be mistaken for one without
    them (XLA_PYTHON_CLIENT_PREALLOCATE inherited from a shell, say)."""
    return dict((k, v) for k, v in environ.items() if k in known or k in asked)


# CUDA's words for a kernel with no machine code for the GPU and no PTX the driver could compile for
# it (torch 1.0 on an H100: "cuda runtime error (8) : invalid device function"), whatever the script does.
NO_GPU_CODE = ("no kernel image is available", "invalid device function", "CUBLAS_STATUS_ARCH_MISMATCH")


def no_gpu_code(exc_value):
    return any(marker in str(exc_value) for marker in NO_GPU_CODE)


def classify(exc_type, exc_value):
    """Tell an API missing in this version, or a kernel this build has no code for on this GPU
    (unsupported), from a scenario error."""
    if exc_type is Unsupported or no_gpu_code(exc_value):
        return "unsupported"
    if exc_type is HarnessFault:
        return "harness-error"
    if issubclass(exc_type, ImportError):
        return "unsupported"
    if issubclass(exc_type, AttributeError):
        text = str(exc_value)
        # Python 3: "module 'tensorflow' has no attribute 'config'";
        # Python 2: "'module' object has no attribute 'config'".
        if text.startswith("module ") or text.startswith("'module' object"):
            return "unsupported"
    return "error"


PRE_GPU = "pre_gpu"


def make_checkpoint(channel, look=None):
    owner = os.getpid()

    def checkpoint(label, skipped=None, baseline=False, frame=None, note=None, search=False, sizes=None):
        """Announce ``label``, report the framework's view, wait for the host to measure.

        ``skipped="reason"``: a step that cannot mean anything here (a GPU-only cleanup without a GPU), measured,
        never judged. ``baseline=True``: the agent's reading before any scenario code. ``note``: how the step was
        reached that its answer depends on (a kit's warm-up whose library failed on this GPU).
        ``frame``: the script's frame at a cleanup line, where what still holds memory is named (``search``: from
        its globals alone, at its ``end``). ``sizes``: its containers' lengths at a loop's sampled iteration.
        A process the script forked runs the same instrumented code: its checkpoints are its own, labelled by
        worker, sent as a spawned worker's are (spawned.forked), never on its parent's channel.
        """
        if os.getpid() != owner:
            forked = getattr(channel, "forked", None)
            if forked is not None:
                forked(label)
            return
        channel.seq += 1
        seq = channel.seq
        fields = {"seq": seq, "label": str(label), "view": framework_view.collect(),
                  "frameworks": framework_view.imported_versions()}  # a script that hangs later still says
        counting = [name for name, v in fields["view"].items() if v is not None]
        live = [name for name in counting if (fields["view"][name] or {}).get("in_use")]
        if look is not None and (frame is not None or search) and (live or not counting):
            try:  # what holds the framework's live memory here (holders.py); no GPU count: its host memory
                found = look(frame, live)
            except Exception as exc:  # never the script's failure: said in the record instead
                found = {"error": "%s: %s" % (type(exc).__name__, exc)}
            if found:
                fields["holders"] = found
        if sizes:
            fields["sizes"] = sizes
        if skipped:
            fields["skipped"] = str(skipped)
        if note:
            fields["note"] = dict((str(k), str(v)) for k, v in note.items())
        if baseline:
            fields["baseline"] = True
        channel.send("checkpoint", **fields)
        channel.wait_ack(seq)
        if search and label == "end":  # measured once the script is done: glibc's free heap, uncollected cycles
            channel.heap_trim = garbage.at_end(counting, live, fields.get("holders"), look is not None)
    return checkpoint


def run(spec, channel):
    path = spec["scenario"]
    scenario_dir = os.path.dirname(os.path.abspath(path))
    try:
        with open(path) as handle:
            source = handle.read()
    except (IOError, OSError) as exc:  # the mount or copy failed us, not the script
        raise HarnessFault("cannot read the scenario file here: %s" % exc)
    checkpoint = make_checkpoint(channel)
    namespace = {
        "__name__": "__scenario__",
        "__file__": path,
        "checkpoint": checkpoint,
        "PARAMS": spec.get("params") or {},
        "Unsupported": Unsupported,
        "run_in_child": lambda target, *args: childwork.run_in_child(checkpoint, target, *args),
    }
    # The floor the driver question is judged against: this process before any framework or
    # CUDA call (its own GPU memory is 0 here), taken for every scenario without its asking.
    checkpoint(PRE_GPU, baseline=True)
    if spec.get("mode") != "repro":
        if scenario_dir not in sys.path:
            sys.path.insert(0, scenario_dir)  # its kit modules (_torchkit, ...) live beside it
        exec(compile(source, path, "exec"), namespace)
        return None
    if spec.get("launch"):  # a launcher's command: its ranks are instrumented, each in its process
        import launcher
        return launcher.run(spec["launch"], path, channel, checkpoint)
    if spec.get("notebook"):
        return {"notebook": run_notebook(path, spec, channel)}
    run_script(path, spec.get("argv") or [], channel, BARE_MODULES, source)
    return None


def run_notebook(path, spec, channel):
    """A notebook's cells in one IPython shell (notebook.py), measured as a script's lines are."""
    import holders
    import notebook

    main = [None]  # the shell's user module, once the shell is made
    hooks = {"make_checkpoint": make_checkpoint, "numbered": sampled.numbered, "agent_dir": HERE, "main": main,
             "hide": lambda: as_bare.hide_own_modules(BARE_MODULES), "frameworks": framework_view.FRAMEWORKS,
             "look": lambda frame, live: holders.find(frame, main[0], live, adjust=notebook.history_roots)}
    return notebook.run(path, spec["notebook"], channel, hooks)


def run_script(path, argv, channel, bare_modules, source=None):
    """A user's script, unmodified: it runs as __main__ with ``argv``, checkpoints after its cleanups."""
    if source is None:
        with open(path) as handle:
            source = handle.read()
    scenario_dir = os.path.dirname(os.path.abspath(path))
    import holders
    import instrument
    module = as_bare.main_module(path)
    checkpoint = make_checkpoint(channel, lambda frame, live: holders.find(frame, module, live))
    code, _, sites = instrument.instrument_sites(source, path, framework_view.FRAMEWORKS)
    mark = sampled.numbered(checkpoint, sites)
    channel.loops = mark.counts
    setattr(module, instrument.CHECKPOINT_NAME, mark)
    as_bare.report_child_exits(channel)
    if getattr(channel, "events", None):  # workers it spawns report their checkpoints too (spawned.py)
        import spawned
        given = {"nonce": channel.nonce, "events": channel.events, "ack_dir": channel.ack_dir,
                 "ack_timeout": channel.ack_timeout, "script": path, "frameworks": framework_view.FRAMEWORKS}
        spawned.install(given)
        channel.forked = spawned.forked(given, framework_view)
    checkpoint("start")
    sys.argv = [path] + list(argv)
    if sys.path and sys.path[0] == HERE:  # `python agent.py` put the agent's folder first
        sys.path[0] = scenario_dir  # a bare run's first entry: the script's folder
    else:
        sys.path.insert(0, scenario_dir)
    sys.dont_write_bytecode = bool(os.environ.get("PYTHONDONTWRITEBYTECODE"))  # the agent's -B is its own
    as_bare.hide_own_modules(bare_modules)
    sys.modules["__main__"] = module  # stays: the script's atexit handlers and children need it
    try:
        exec(code, module.__dict__)
    except SystemExit:  # sys.exit() ends a script normally too: its end is still measured
        checkpoint("end", search=True)
        raise
    checkpoint("end", search=True)  # what still holds memory when the script is done: a loop's leak is named here


def main(argv):
    agent_main = sys.modules.get("__main__")  # noqa: F841  alive until the end: the script replaces it in sys.modules
    spec = json.loads(argv[1])
    framework_view.know(spec.get("frameworks"))
    out = detach_stdio()
    channel = Channel(spec["nonce"], spec["ack_dir"], float(spec.get("ack_timeout", 600)), out)
    channel.events = spec.get("events")  # where a spawned worker's checkpoints go
    channel.send("hello", pid=os.getpid(), python=sys.version.split()[0], executable=sys.executable,
                 env=memory_environment(os.environ, spec.get("memory_env") or (), spec.get("asked_env") or ()))
    status, error, code, launched, extra = "ok", None, 0, None, {}
    try:
        launched = run(spec, channel)
        if launched is not None and "notebook" in launched:
            extra["notebook"], launched = launched["notebook"], None
        if getattr(channel, "heap_trim", None):
            extra["heap_trim"] = channel.heap_trim
        if launched is not None:  # a launcher's exit: its code, and the first rank that failed
            code, error = launched["code"], launched["error"]
            status = "error" if error else "ok"
    except BaseException:  # the scenario's failure is a result, whatever it raised
        exc_type, exc_value = sys.exc_info()[:2]
        if spec.get("mode") == "repro":  # a user's script ends its process as it would bare
            code = as_bare.exit_code(sys.exc_info())
        if exc_type is SystemExit and not exc_value.code:
            status = "ok"
        else:
            status = classify(exc_type, exc_value)
            said = as_bare.failure_message(sys.exc_info())
            error = {
                "type": exc_type.__name__,
                "message": ("this build has no code for this GPU for a kernel it called: " + said
                            if no_gpu_code(exc_value) else said),
                "traceback": traceback.format_exc(),
            }
    counted = getattr(channel, "loops", None)
    loops = dict((label, n) for label, n in (counted() if counted else {}).items() if n > 1)
    facts = (launched or {}).get("facts") or framework_view.facts()  # a launcher's: what its ranks ran
    channel.send("end", status=status, error=error, facts=facts, loops=loops, exit_code=code, **extra)
    out.close()  # closed, not left to the interpreter's end: Python 3.7/3.8 crash there (SIGSEGV) warning of it
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv))
