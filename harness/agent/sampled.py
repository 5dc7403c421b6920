"""A repeated checkpoint site (a loop's iteration, a cleanup line in a loop or a function), sampled.

Runs INSIDE the environment: stdlib only, Python 2.7 and 3.5+. Every iteration up to 10 is
measured, then every 10th up to 100, every 100th up to 1,000 and so on, so a long loop costs a few
dozen readings; the script's own line counts its runs (instrument.py), and only a sampled one calls here.
"""
import sys

import keras_graph  # beside this file

LOOP_EVERY_UNTIL = 10
SAMPLES = sorted(set(list(range(1, LOOP_EVERY_UNTIL + 1))
                     + [k * 10 ** d for d in range(1, 16) for k in range(1, 10)]))  # to 9e15: any loop


MAX_NAMES = 200  # containers measured per sampled iteration: a script's own names, never a module's namespace


def container_sizes(frame):
    """{name: len} of the lists, dicts, sets, tuples and deques the loop's frame and the script's globals
    name (a loop that keeps every output grows one of them): read by ``len`` alone, nothing walked, no
    copy kept. A function's locals are named ``f() local x``, as the holder search names them."""
    found = {}
    scopes = [("", frame.f_globals)]
    if frame.f_code.co_name != "<module>" and frame.f_locals is not frame.f_globals:
        scopes.insert(0, ("%s() local " % frame.f_code.co_name, frame.f_locals))
    for prefix, names in scopes:
        for name, value in list(names.items()):
            if len(found) >= MAX_NAMES:
                return found
            kind = type(value).__name__
            if name.startswith("_") or kind not in ("list", "dict", "set", "tuple", "deque", "OrderedDict", "defaultdict"):
                continue
            try:
                found[prefix + name] = len(value)
            except Exception:
                continue
    if sys.version_info < (3, 13) and scopes[0][1] is not frame.f_globals:
        scopes[0][1].clear()  # reading f_locals copied the locals into a dict the frame keeps: let them go
    if "tensorflow" in sys.modules:  # models built in a loop grow it, where no name of the script does (TF 2.0-2.3)
        found[keras_graph.NAME] = keras_graph.operations() or 0  # 0 before Keras made it: every reading has it
    return found


def numbered(checkpoint, sites=()):
    """The instrumented script's checkpoint. A repeated site (a loop's iteration, a cleanup line in
    a loop or a function) counts itself in the script's own line, in C (``next`` of an
    itertools.count, a test against a frozenset of the sampled iterations: about 0.1 us an
    iteration); only a sampled iteration calls here, and gets its number (``label#n``)."""
    import itertools

    counters = [itertools.count(1) for _ in sites]
    hits = [0] * len(sites)

    def grow():
        """Sites added since (a notebook's next cell): each gets its count."""
        while len(counters) < len(sites):
            counters.append(itertools.count(1))
            hits.append(0)

    def mark(label, site=None):
        if site is None:  # a cleanup line: what still holds memory is searched from the script's frame
            checkpoint(label, frame=sys._getframe(1))
            return
        if site < 0:  # a framework's import: measured only
            checkpoint(label)
            return
        n = SAMPLES[hits[site]]  # sampled iterations arrive in order: the k-th call is the k-th sample
        hits[site] += 1
        checkpoint("%s#%d" % (label, n), sizes=container_sizes(sys._getframe(1)))

    def counts():
        """Iterations each repeated site ran (read once, at the end: it advances the counts)."""
        return dict((sites[k], next(counter) - 1) for k, counter in enumerate(counters))
    mark.counters = counters
    mark.samples = frozenset(SAMPLES)
    mark.counts = counts
    mark.grow = grow
    return mark
