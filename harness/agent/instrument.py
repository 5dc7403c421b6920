"""Checkpoints for an unmodified script: after every statement that performs a cleanup.

Runs inside the environment (stdlib only, Python 2.7 and 3.5+). The script's syntax tree gets a
call to the checkpoint function after each ``del``, each ``x = None``, each call to a known
cleanup function (gc.collect, clear_session, reset_default_graph, close, empty_cache, ...),
after each ``with`` block that opens a TF session, and after each top-level import of a
framework (the host-memory floor: what the import costs is not the script's to give back); the
label is ``file:line: source``. A loop without any cleanup line gets a checkpoint at the start of
each iteration, labelled by the loop's own line (growth per iteration, where nothing is cleaned
up). A checkpoint inside a loop or a function may run many times: it is a repeated site, which
counts its runs in the script's line and calls the agent only at the sampled ones, numbered. The
script's own lines keep their numbers, so tracebacks still point at the user's code.
"""
import ast
import os
import re

CHECKPOINT_NAME = "__harness_checkpoint__"
# Cleanup calls by name: gc.collect, torch.cuda's empty_cache / ipc_collect / reset_peak_memory_stats,
# keras' clear_session, TF1's reset_default_graph, jax.clear_caches, CuPy pools' free_all_blocks,
# accelerate's release_memory and Accelerator.free_memory, torch.compiler.reset / torch._dynamo.reset,
# and any call whose name says it frees, clears, releases, resets or closes (CLEANUP_WORDS).
CLEANUP_CALLS = ("collect", "empty_cache", "ipc_collect", "reset_default_graph", "clear_memo")
CLEANUP_WORDS = ("free", "frees", "clear", "clears", "release", "releases", "reset", "resets", "close", "closes",
                 "cleanup", "dealloc", "deallocate", "unload", "destroy", "destroys")  # destroy_process_group
WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
SESSION_NAMES = ("Session", "InteractiveSession")
FIELDS = ("body", "orelse", "finalbody")
REPEATING = ("For", "While", "AsyncFor", "FunctionDef", "AsyncFunctionDef")


def _call_name(node):
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute):
            return func.attr
        if isinstance(func, ast.Name):
            return func.id
    return None


def _is_none(node):
    if isinstance(node, ast.Name):  # Python 2: None is a name
        return node.id == "None"
    return getattr(node, "value", 0) is None and type(node).__name__ in ("Constant", "NameConstant")


def _opens_session(stmt):
    items = getattr(stmt, "items", None)
    exprs = [item.context_expr for item in items] if items is not None else [getattr(stmt, "context_expr", None)]
    return any(_call_name(expr) in SESSION_NAMES for expr in exprs)


def is_framework_import(stmt, frameworks):
    """``import torch`` / ``from tensorflow import keras``: after it, host memory holds the
    framework itself, a floor for what the script's cleanups give back, not a leak."""
    if isinstance(stmt, ast.Import):
        names = [alias.name for alias in stmt.names]
    elif isinstance(stmt, ast.ImportFrom) and not stmt.level:
        names = [stmt.module or ""]
    else:
        return False
    return any(name.split(".")[0] in frameworks for name in names)


def is_cleanup_name(name):
    """``release_memory``, ``freeMemory``, ``clear_session``, ``reset``: a name that says it cleans up."""
    if not name:
        return False
    return name in CLEANUP_CALLS or any(word.lower() in CLEANUP_WORDS for word in WORD.findall(name))


def is_cleanup(stmt):
    if isinstance(stmt, ast.Delete):
        return True
    if isinstance(stmt, ast.Assign) and _is_none(stmt.value):
        return True
    if isinstance(stmt, (ast.Expr, ast.Assign)) and is_cleanup_name(_call_name(stmt.value)):
        return True  # `gc.collect()`, and `model, opt = release_memory(model, opt)`
    return isinstance(stmt, ast.With) and _opens_session(stmt)


def _label(filename, lines, stmt):
    """``train.py:40: del model``; a notebook's cell is named ``cell 3, line 2``."""
    text = lines[stmt.lineno - 1].strip() if stmt.lineno - 1 < len(lines) else ""
    if isinstance(stmt, ast.With):
        text = "end of: " + text
    if filename.startswith("cell "):
        return "%s, line %d: %s" % (filename, stmt.lineno, text[:80])
    return "%s:%d: %s" % (os.path.basename(filename), stmt.lineno, text[:80])


def _is_loop(stmt):
    return type(stmt).__name__ in ("For", "While", "AsyncFor")


NO_LOOK = -1  # a checkpoint that is no cleanup (a framework's import): what holds memory is not searched there


def _mark(label, like, site=None):
    """The checkpoint call; in a loop or a function (``site``: the repeated site's index) the count
    and the sampling test stay in the script's line, so an unsampled iteration makes no call."""
    if site is None or site == NO_LOOK:
        text = "%s(%r)" % (CHECKPOINT_NAME, label) if site is None else "%s(%r, %d)" % (CHECKPOINT_NAME, label, site)
    else:
        text = "if next(%s.counters[%d]) in %s.samples: %s(%r, %d)" % (
            CHECKPOINT_NAME, site, CHECKPOINT_NAME, CHECKPOINT_NAME, label, site)
    node = ast.parse(text).body[0]
    line = getattr(like, "end_lineno", None) or getattr(like, "lineno", 1)
    for child in ast.walk(node):
        if "lineno" in getattr(child, "_attributes", ()):
            child.lineno, child.col_offset = line, 0
            if hasattr(child, "end_lineno"):  # Python 3.8+ checks ranges
                child.end_lineno, child.end_col_offset = line, 0
    return node


def _site(sites, label):
    sites.append(label)
    return len(sites) - 1


def _instrument_body(stmts, filename, lines, count, frameworks, sites, repeat=False):
    out = []
    for stmt in stmts:
        inner = repeat or type(stmt).__name__ in REPEATING
        counted = _is_loop(stmt) and not any(is_cleanup(node) for node in ast.walk(stmt) if node is not stmt)
        for field in FIELDS:  # nested blocks: functions, loops, if/try/with bodies
            if isinstance(getattr(stmt, field, None), list):
                setattr(stmt, field, _instrument_body(getattr(stmt, field), filename, lines, count, frameworks, sites, inner))
        for handler in getattr(stmt, "handlers", None) or []:
            handler.body = _instrument_body(handler.body, filename, lines, count, frameworks, sites, inner)
        if counted:  # a loop without a cleanup line: each iteration's start is measured (growth per iteration)
            label = _label(filename, lines, stmt)
            stmt.body.insert(0, _mark(label, stmt.body[0], _site(sites, label)))
            count[0] += 1
        out.append(stmt)
        if is_cleanup(stmt) or (not repeat and is_framework_import(stmt, frameworks)):
            label = _label(filename, lines, stmt)
            once = None if is_cleanup(stmt) else NO_LOOK
            out.append(_mark(label, stmt, _site(sites, label) if repeat else once))
            count[0] += 1
    return out


def instrument(source, filename, frameworks=()):
    """The compiled, instrumented script and how many checkpoints were added; ``frameworks``: the
    import names whose import is a framework's (the host's registry sends them in the spec)."""
    code, count, _ = instrument_sites(source, filename, frameworks)
    return code, count


def instrument_sites(source, filename, frameworks=()):
    """As instrument, and the labels of its repeated sites, by index (numbered() counts them)."""
    tree = ast.parse(source, filename)
    sites = []
    count = instrument_tree(tree, filename, source.splitlines(), frameworks, sites)
    return compile(tree, filename, "exec"), count, sites


def instrument_tree(tree, filename, lines, frameworks, sites):
    """Checkpoints put into a parsed module in place (a notebook cell's, as IPython parsed it);
    its repeated sites are appended to ``sites``. Returns how many were added."""
    count = [0]
    tree.body = _instrument_body(tree.body, filename, lines, count, tuple(frameworks), sites)
    ast.fix_missing_locations(tree)
    return count[0]
