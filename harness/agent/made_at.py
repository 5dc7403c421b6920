"""Where the script made what holds its memory: the line that first binds a holder's name, and the line
in a loop that makes it grow (``total_loss += loss``, ``outputs.append(y)``, ``cache[key] = y``).

Runs inside the environment, in the script's process: stdlib only, Python 2.7 and 3.5+. Read from
the script's own source (the file ``__main__`` ran), once; nothing of the script runs. A global is
looked up among the module's statements, a local (``train() local x``) in that function's body.
"""
import ast
import re

LOCAL = re.compile(r"^(\w+)\(\) local (\w+)$")
_SITES = {}  # path -> {(function or "", name): (line, source)}
_GROWN = {}  # path -> {(function or "", name): (line, source, how)}: in a loop, "+=", "append", "[key] ="
GROWERS = ("append", "extend", "add", "update", "insert", "appendleft", "setdefault")
LOOPS = (ast.For, ast.While, getattr(ast, "AsyncFor", ast.For))


def _grows(node):
    """(name, how) where a statement grows what a name holds: ``x += y``, ``x.append(y)``, ``x[k] = y``."""
    if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
        return node.target.id, "+="
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        func = node.value.func
        if isinstance(func, ast.Attribute) and func.attr in GROWERS and isinstance(func.value, ast.Name):
            return func.value.id, func.attr
    if isinstance(node, ast.Assign):  # cache[key] = y, never a slice written in place (block[::2] = ...)
        for target in node.targets:
            index = getattr(target, "slice", None)
            index = getattr(index, "value", index) if type(index).__name__ == "Index" else index  # before 3.9
            if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and not isinstance(
                    index, (ast.Slice, getattr(ast, "ExtSlice", ast.Slice))):
                return target.value.id, "[key] ="
    return None


def _bound(node):
    """The names a statement binds, as the script wrote them."""
    targets = []
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, (ast.AugAssign, getattr(ast, "AnnAssign", ast.AugAssign))):
        targets = [node.target]
    elif isinstance(node, (ast.For, getattr(ast, "AsyncFor", ast.For))):
        targets = [node.target]
    elif isinstance(node, (ast.With, getattr(ast, "AsyncWith", ast.With))):
        targets = [item.optional_vars for item in getattr(node, "items", [node]) if getattr(item, "optional_vars", None)]
    elif isinstance(node, (ast.FunctionDef, ast.ClassDef, getattr(ast, "AsyncFunctionDef", ast.FunctionDef))):
        return [node.name]
    names = []
    for target in targets:
        for sub in ast.walk(target):
            if isinstance(sub, ast.Name):
                names.append(sub.id)
    return names


def _sites(path):
    if path not in _SITES:
        found = {}
        try:
            with open(path) as handle:
                source = handle.read()
            tree = ast.parse(source)
        except (IOError, OSError, SyntaxError, ValueError):
            _SITES[path] = found
            _GROWN[path] = {}
            return found
        lines = source.splitlines()
        grown = {}

        def visit(body, scope, looped):
            for node in body:
                text = lines[node.lineno - 1].strip() if 0 < node.lineno <= len(lines) else ""
                for name in _bound(node):
                    found.setdefault((scope, name), (node.lineno, text[:100]))
                growing = _grows(node) if looped else None
                if growing:
                    grown.setdefault((scope, growing[0]), (node.lineno, text[:100], growing[1]))
                if isinstance(node, (ast.FunctionDef, getattr(ast, "AsyncFunctionDef", ast.FunctionDef))):
                    visit(node.body, node.name, False)
                else:  # the bodies of if/for/while/with/try at the same scope
                    inner = looped or isinstance(node, LOOPS)
                    for field in ("body", "orelse", "finalbody"):
                        visit(getattr(node, field, None) or [], scope, inner)
                    for handler in getattr(node, "handlers", None) or []:
                        visit(handler.body, scope, inner)
        visit(tree.body, "", False)
        _SITES[path] = found
        _GROWN[path] = grown
    return _SITES[path]


def made_at(main, owner):
    """[line, source] of the statement that first binds ``owner`` in the script, or None."""
    path = getattr(main, "__file__", None)
    if not path:
        return None
    local = LOCAL.match(owner)
    key = (local.group(1), local.group(2)) if local else ("", owner)
    site = _sites(path).get(key)
    return list(site) if site else None


def grows_at(main, owner):
    """[line, source, how] of the statement in a loop that grows ``owner`` (``+=``, ``append``, ``[key] =``),
    or None."""
    path = getattr(main, "__file__", None)
    if not path:
        return None
    _sites(path)
    local = LOCAL.match(owner)
    site = _GROWN.get(path, {}).get((local.group(1), local.group(2)) if local else ("", owner))
    return list(site) if site else None
