"""What holds the memory, in words: each holder the agent found (agent/holders.py), with the fix
where the pattern is known.

A list that collects losses with their graphs, an optimizer whose state outlives ``del model``, an
exception whose traceback keeps a frame's locals, a local of a function still running: each is
named by the name that reaches it, with its bytes, its arrays and whether they keep an autograd
graph; what no name reaches is said as unaccounted.
"""
from __future__ import annotations

import re

from harness.common.units import human_bytes
from harness.judgement.floors import in_use
from harness.model.holders import Holder, Holders
from harness.model.record import Checkpoint

OPTIMIZERS = re.compile(r"^(Adam\w*|SGD|RMSprop|Adagrad|Adadelta|Adafactor|Lion|LAMB|LBFGS|NAdam|RAdam|SparseAdam|"
                        r"\w*Optimizer\w*)$")
FRAME = re.compile(r"__traceback__ \(frame of (\w+)\(\)\)")
LOCAL = re.compile(r"^(\w+)\(\) local (\w+)$")
CLOSURE = re.compile(r"\.<closure (\w+)>")
KERAS_SAID_FROM = 1000  # operations: one model of a few layers makes 15-40, so this many are models piling up
SAID_FROM = 1 << 20  # less than this, unaccounted, is a framework's bookkeeping: not said
OUTPUT = re.compile(r"^Out\[(\d+)\]")  # a notebook's output history (agent/notebook.py names it so)
LAST_ERROR = "sys.last_value"  # the exception IPython keeps after a cell raised, with its traceback


def _arrays(holder: Holder, noun: str = "tensor") -> str:
    n, graph = holder["arrays"], holder.get("graph_bytes") or 0
    saved = f", {human_bytes(graph)} of it saved by their graphs for backward" if graph else ""
    if holder.get("graph_unread"):  # torch 1.0: no node of a graph shows what it saved
        saved = ", without what their graphs saved for backward: this release shows no graph's saved tensors"
    return f"{n} {noun}{'s' if n != 1 else ''} ({human_bytes(holder['bytes'])}{saved})"


def sentence(holder: Holder, noun: str = "tensor") -> str:
    """One holder, said with what it is, the fix a bug thread would give (``noun``: what the framework
    calls its arrays) and, where the agent found it, the script's line that made it."""
    said = _sentence(holder, noun)
    site = holder.get("made_at")
    if site and len(site) == 2 and site[1]:
        said += f" Made at line {site[0]}: `{code_of(site[1])}`."
    return said


def _sentence(holder: Holder, noun: str) -> str:
    owner, kind, paths = holder["owner"], holder.get("kind") or "", holder.get("paths") or []
    named = f"`{owner}`" + (f" ({kind})" if kind else "")
    shapes = f" [{holder['shapes']}]" if holder.get("shapes") else ""
    frame = next((m.group(1) for p in paths if (m := FRAME.search(p))), None)
    local = LOCAL.match(owner)
    captured = next((m.group(1) for p in paths if (m := CLOSURE.search(p))), None)
    notebook = _notebook_sentence(holder, owner, paths, frame, noun, shapes)
    if notebook:
        return notebook
    if holder.get("cycle"):
        return _cycle_sentence(holder, noun, shapes)
    if captured and kind in ("function", ""):
        return (f"`{owner}` keeps `{captured}` in its closure: {_arrays(holder, noun)}{shapes}; `del {owner}` (or pass "
                f"`{captured}` as an argument instead of closing over it).")
    if kind.endswith("Session"):
        return (f"{named} is still open and keeps its graph's variables: {human_bytes(holder['bytes'])}; "
                f"`{owner}.close()` (or `with tf.compat.v1.Session() as {owner}:`) gives them back.")
    if frame:
        return (f"the traceback in `{owner}` keeps the frame of `{frame}()` and its locals: {_arrays(holder, noun)}{shapes}; "
                f"`del {owner}` (or keep `str({owner})` instead of the exception).")
    if local:
        return (f"`{local.group(2)}`, a local of `{local.group(1)}()` that is still running, keeps {_arrays(holder, noun)}"
                f"{shapes}; it goes when the function returns, or with `del {local.group(2)}` there.")
    grows = holder.get("grows_at")
    if grows and len(grows) == 3 and (grows[2] != "[key] =" or "dict" in kind.lower()):
        return _growing(holder, named, owner, grows, noun, shapes)
    if OPTIMIZERS.match(kind) or any(".state" in p for p in paths):
        return (f"{named} holds its state and the parameters it was given, after the model is gone: "
                f"{_arrays(holder, noun)}{shapes}; `del {owner}` too.")
    if holder.get("graph") and kind.split(" ")[0] in ("list", "dict", "tuple", "set", "deque"):
        return (f"{named} keeps {_arrays(holder, noun)} with their autograd graphs{shapes}: append `loss.item()` or "
                f"`loss.detach()`, not the tensor.")
    graph = f", {holder['graph']} of them with their autograd graphs" if holder.get("graph") else ""
    them = "them" if holder["arrays"] != 1 else "it"
    return f"{named} keeps {_arrays(holder, noun)}{graph}{shapes}: `del {owner}` (or `{owner} = None`) to free {them}."


def _cycle_sentence(holder: Holder, noun: str, shapes: str) -> str:
    """No name reaches it: a cycle through its own autograd graph does, closed by ``owner``; gc frees it or never."""
    where, at = holder["owner"], holder.get("cycle_at") or []
    line = f" (line {at[0]}: `{code_of(at[1])}`)" if len(at) == 2 and at[1] else ""
    ctx = re.search(r"`ctx\.(\w+)`", where)
    fix = (f"keep it with `ctx.save_for_backward(...)` instead of `ctx.{ctx.group(1)}`" if ctx else
           "pass what the hook needs as an argument, or remove it (`handle.remove()`) when done")
    if holder.get("cycle") == "gc-proof":
        return (f"a reference cycle that gc cannot free keeps {_arrays(holder, noun)}{shapes}: {where}{line}, and this "
                f"release's tensor holds its graph node where gc cannot see; {fix}.")
    return (f"a reference cycle keeps {_arrays(holder, noun)}{shapes} until gc next runs: {where}{line}; "
            f"`gc.collect()` frees it, or {fix}.")


ADDED = re.compile(r"\+=\s*(.+?)\s*$")  # total_loss += loss -> loss


def code_of(text: object) -> str:
    """A script's line as code: ``total_loss += loss  # keeps this iteration's graph`` -> ``total_loss += loss``
    (a ``#`` inside a string is the string's)."""
    line, quote = str(text), ""
    for i, char in enumerate(line):
        if quote:
            quote = "" if char == quote and line[i - 1] != "\\" else quote
        elif char in "'\"":
            quote = char
        elif char == "#":
            return line[:i].rstrip()
    return line.strip()


def _growing(holder: Holder, named: str, owner: str, grows: list[object], noun: str, shapes: str) -> str:
    """A name a loop grows, with the line that grows it and the fix for its pattern: a tensor summed with its
    graph (``total_loss += loss``: add ``loss.item()``), outputs appended (clear the list, or keep a number),
    a dict filled per iteration."""
    line, text, how = grows[0], code_of(grows[1]), grows[2]
    where = f"at line {line} (`{text}`)"
    items = re.search(r" of (\d+)$", str(holder.get("kind") or ""))  # "list of 30": what the loop added, one each
    count = min(int(items.group(1)), holder["arrays"]) if items else holder["arrays"]
    each = f", {human_bytes(holder['bytes'] // count)} each" if count > 1 and not holder.get("graph_bytes") else ""
    if how == "+=":
        added = ADDED.search(text)
        value = added.group(1) if added else "the value"
        if holder.get("graph"):
            return (f"{named} adds each iteration's `{value}` with its autograd graph {where}: {_arrays(holder, noun)}"
                    f"{shapes}, every iteration's graph kept; add `{value}.item()` (a float) or `{value}.detach()` instead.")
        return f"{named} grows {where}: {_arrays(holder, noun)}{shapes}; `del {owner}` once it is used."
    if how in ("[key] =", "update", "setdefault"):
        return (f"{named} gains an entry per iteration {where}: {_arrays(holder, noun)}{each}{shapes}; clear it once "
                "used, or bound it (drop old keys).")
    if holder.get("graph"):
        return (f"{named} gains a {noun} per iteration with its autograd graph {where}: {_arrays(holder, noun)}{shapes}; "
                "append its `.item()` or `.detach()`, not the tensor.")
    scalar = "[]" in str(holder.get("shapes") or "")  # 0-dim values: a number is what was wanted
    return (f"{named} gains one per iteration {where}: {_arrays(holder, noun)}{each}{shapes}; `{owner}.clear()` once "
            "they are used" + (", or keep a number (`.item()`)" if scalar else "") + ".")


def _notebook_sentence(holder: Holder, owner: str, paths: list[str], frame: str | None, noun: str,
                       shapes: str) -> str | None:
    """What an IPython shell keeps, with the fix that works (each checked in IPython 8.12 and 9.18:
    ``%reset -f out`` clears ``Out`` and ``_`` but leaves ``_2`` in the shell's hidden namespace)."""
    if owner == "Out":
        cells = sorted({m.group(1) for p in paths if (m := OUTPUT.match(p))}, key=int)
        which = ", ".join(f"`Out[{n}]`" for n in cells) or "`Out`"
        numbered = ", ".join(f"`_{n}`" for n in cells)
        return (f"IPython's output history keeps what the last line of cell {', '.join(cells) or '?'} showed ({which}"
                f"{', also ' + numbered if numbered else ''}): {_arrays(holder, noun)}{shapes}; `%xdel NAME` instead of "
                "`del NAME` removes it from there too, or end that line with `;` so it is never kept (`%reset -f out` "
                f"leaves {numbered or 'the numbered names'} behind).")
    if owner == LAST_ERROR:
        where = f"the frame of `{frame}()` and its locals" if frame else "the frames of the cell that raised"
        return (f"the traceback IPython keeps of the last error (`sys.last_traceback`) keeps {where}: "
                f"{_arrays(holder, noun)}{shapes}; a cell that raises a small error (`1/0`) replaces it, or "
                "`sys.last_type = sys.last_value = sys.last_traceback = None` with `get_ipython().InteractiveTB.tb = None`.")
    return None


def sentences(found: Holders, live: int | None = None) -> list[str]:
    """Every holder named, largest first, then what no name reaches and (``live``: the framework's own
    count at that checkpoint) what no tensor the search saw holds; a note when the time budget ran out."""
    if found.get("error"):
        return [f"What holds it could not be found here ({found['error']})."]
    noun = "tensor" if found.get("framework") in (None, "torch", "tensorflow") else "array"
    said = [sentence(h, _noun(h, noun)) for h in found.get("holders") or []]
    if (found.get("unaccounted") or 0) >= SAID_FROM:
        said.append(f"{human_bytes(found['unaccounted'])} of {human_bytes(found.get('total'))} no name of the script "
                    "reaches (a framework cache, a closure, or garbage the collector has not taken yet).")
    unseen = (live or 0) - int(found.get("total") or 0)
    if live and unseen > int(found.get("total") or 0) * 0.01 and unseen > 1 << 20:
        said.append(f"{human_bytes(unseen)} of the {human_bytes(live)} {found.get('framework') or 'the framework'} counts "
                    "live is in no tensor the search saw (workspaces, the allocator's own blocks, tensors only C++ "
                    "code holds).")
    if (found.get("keras_graph_ops") or 0) >= KERAS_SAID_FROM:
        said.append(f"Keras' global graph holds {found['keras_graph_ops']} operations: every model built since the last "
                    "`tf.keras.backend.clear_session()` stays there with its layers (TensorFlow 2.0-2.3); call it between "
                    "models, or build one and reuse it.")
    if found.get("unreadable"):
        n = int(found["unreadable"])
        said.append(f"{n} object{'s' if n != 1 else ''} whose size could not be read (a proxy, a buffer that raises) "
                    f"{'were' if n != 1 else 'was'} skipped: what {'they hold is' if n != 1 else 'it holds is'} in no "
                    "figure above.")
    if found.get("budget_hit"):
        said.append(f"The search stopped at its {found.get('budget_s')} s budget: not every holder is named.")
    return said


def _noun(holder: Holder, found: str) -> str:
    """What its framework calls a holder's arrays (a list of numpy arrays beside torch's tensors), else the search's."""
    framework = holder.get("framework")
    return found if not framework else "tensor" if framework in ("torch", "tensorflow") else "array"


def said_at(cp: Checkpoint) -> list[str]:
    """The holders a checkpoint found, in words, against what the framework counted live there."""
    return sentences(cp.get("holders") or {}, in_use(cp) or None)
