"""Where the script made what holds its memory: the line that first binds a holder's name.

Runs inside the environment, in the script's process: stdlib only, Python 2.7 and 3.5+. Read from
the script's own source (the file ``__main__`` ran), once; nothing of the script runs. A global is
looked up among the module's statements, a local (``train() local x``) in that function's body.
"""
import ast
import re

LOCAL = re.compile(r"^(\w+)\(\) local (\w+)$")
_SITES = {}  # path -> {(function or "", name): (line, source)}


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
            return found
        lines = source.splitlines()

        def visit(body, scope):
            for node in body:
                for name in _bound(node):
                    text = lines[node.lineno - 1].strip() if 0 < node.lineno <= len(lines) else ""
                    found.setdefault((scope, name), (node.lineno, text[:100]))
                if isinstance(node, (ast.FunctionDef, getattr(ast, "AsyncFunctionDef", ast.FunctionDef))):
                    visit(node.body, node.name)
                else:  # the bodies of if/for/while/with/try at the same scope
                    for field in ("body", "orelse", "finalbody"):
                        visit(getattr(node, field, None) or [], scope)
                    for handler in getattr(node, "handlers", None) or []:
                        visit(handler.body, scope)
        visit(tree.body, "")
        _SITES[path] = found
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
