"""Tensors no name reaches that a reference cycle through their own autograd graph keeps.

Runs inside the environment, in the script's process: stdlib only, Python 2.7 and 3.5+. A custom autograd
Function that keeps its output on ``ctx`` (``ctx.out = out``), or a hook that closes over the tensor it is
registered on, makes a cycle: tensor -> its graph node -> the node's attribute or hook -> the tensor. Where the
tensor's link to its node is C++ that ``gc`` cannot see (torch 1.0: the node is not among
``gc.get_referents(tensor)``), no collection ever frees it; where gc sees every link, the next collection does.
Each such tensor is named by the node and the attribute or hook that closes the cycle, and the line of the
Function's ``forward`` (or the hook's ``def``) where it is made. Nothing is collected here: gc is only asked
what it sees."""
import gc
import linecache


def _holds(value, tensor):
    """Whether ``value`` is the tensor or a container that holds it directly."""
    if value is tensor:
        return True
    if isinstance(value, (list, tuple)):
        return any(item is tensor for item in value)
    if isinstance(value, dict):
        return any(item is tensor for item in value.values())
    return False


def _line_of(function, needle):
    """[line, text] of the first line of ``function``'s source that holds ``needle``, else of its ``def``."""
    code = getattr(function, "__code__", None)
    if code is None:
        return None
    first = code.co_firstlineno
    for number in range(first, first + 200):
        text = linecache.getline(code.co_filename, number)
        if not text:
            break
        if needle and needle in text:
            return [number, text.strip()]
    return [first, linecache.getline(code.co_filename, first).strip()]


def _closure_holds(function, tensor):
    for cell in getattr(function, "__closure__", None) or ():
        try:
            if _holds(cell.cell_contents, tensor):
                return True
        except ValueError:  # an empty cell
            continue
    return False


def _hook_closing(tensor):
    """The hook registered on ``tensor`` that closes over it, said, with its ``def`` line; or None."""
    hooks = getattr(tensor, "_backward_hooks", None) or {}
    for hook in list(hooks.values()):
        if _closure_holds(hook, tensor):
            visible = any(r is hooks for r in gc.get_referents(tensor))  # can gc walk from the tensor to its hooks?
            return ("the hook `%s` registered on it closes over it" % getattr(hook, "__name__", "?"), visible,
                    _line_of(hook, None))
    return None


def explain(tensor):
    """(who closes the cycle, whether gc can free it, [line, text] where it is made), or None: no cycle
    through the tensor's own graph node keeps it."""
    node = getattr(tensor, "grad_fn", None)
    if node is None:
        return _hook_closing(tensor)
    visible = any(r is node for r in gc.get_referents(tensor))  # can gc walk from the tensor to its node?
    for name, value in list((getattr(node, "__dict__", None) or {}).items()):
        if _holds(value, tensor):
            owner = getattr(type(node), "_forward_cls", None)
            forward = getattr(owner, "forward", None)
            where = "%s (the autograd node of `%s`) keeps it as `ctx.%s`" % (
                type(node).__name__, getattr(owner, "__name__", "?"), name)
            return where, visible, _line_of(forward, "ctx.%s" % name) if forward is not None else None
    hook = _hook_closing(tensor)
    return (hook[0], visible and hook[1], hook[2]) if hook is not None else None


def explained(tensor):
    """``explain``, or None where the tensor or its graph breaks on inspection: left unaccounted, never the script's
    failure."""
    try:
        return explain(tensor)
    except Exception:
        return None
