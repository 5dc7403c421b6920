"""``%load_ext gpu_cleanup_matrix`` then ``%memory_why`` in a running IPython or Jupyter kernel: what holds GPU and
host memory now, with no replay: the search repro runs at a cleanup line (agent/holders.py), run in the kernel's
own process over its namespace, and said in repro.md's words and fixes (judgement/holders.py).

A user with a 40 GB model loaded asks it before filing a report. The agent's modules are loaded from the
package's own folder under private names, so a module of the user's called ``holders`` or ``graphs`` is neither
shadowed nor used; nothing found is kept once the words are made.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from harness.common.units import human_bytes
from harness.judgement import holders as words
from harness.model.holders import Holders

AGENT = Path(__file__).resolve().parents[1] / "agent"
# the agent's modules the search needs, each importing the ones before it by its bare name
NEEDED = ("framework_view", "live_arrays", "made_at", "graphs", "cycles", "keras_graph", "holders", "notebook")
PRIVATE = "gpu_cleanup_matrix._agent."


def _agent() -> dict[str, ModuleType]:
    """The agent's search modules, loaded once from its folder; while they load, their bare names point at them
    alone (a user's module of the same name is put back after)."""
    if PRIVATE + "holders" in sys.modules:
        return {name: sys.modules[PRIVATE + name] for name in NEEDED}
    saved = {name: sys.modules.pop(name) for name in NEEDED if name in sys.modules}
    loaded: dict[str, ModuleType] = {}
    try:
        for name in NEEDED:
            spec = importlib.util.spec_from_file_location(name, AGENT / f"{name}.py")
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module  # the next module's `import live_arrays` finds this one
            spec.loader.exec_module(module)
            loaded[name] = module
    finally:
        for name in NEEDED:
            sys.modules.pop(name, None)
        sys.modules.update(saved)
    for name, module in loaded.items():
        sys.modules[PRIVATE + name] = module
    return loaded


def report(shell: Any) -> list[str]:
    """What holds memory in ``shell``'s namespace now, in repro.md's words: the frameworks' counts, then each
    holder with its fix (GPU memory where a framework counts it, else host memory)."""
    agent = _agent()
    view = agent["framework_view"].collect()
    live = [name for name, v in view.items() if v and v.get("in_use")]
    lines = [f"{name}: {human_bytes(int(v.get('in_use') or 0))} in use, {human_bytes(int(v.get('reserved') or 0))} "
             "reserved (its own count)" for name, v in view.items() if v and v.get("reserved") is not None]
    found: Holders | None = agent["holders"].find(None, shell.user_module, live,
                                                  adjust=agent["notebook"].history_roots)
    if not found:
        return [*lines, "Nothing the search can see holds memory here (no framework array or buffer of 1 MiB or more "
                "that a name of this kernel reaches)."]
    where = "host memory" if found.get("device") == "cpu" else "memory"
    total = int(found.get("total") or 0)
    return [*lines, f"What holds the {where} now ({human_bytes(total)} seen, the search took {found.get('seconds')} s):",
            *(f"- {line}" for line in words.sentences(found, sum(int(v.get("in_use") or 0) for v in view.values()
                                                                 if v) or None))]


def load(shell: Any) -> None:
    """Register ``%memory_why`` in ``shell`` (IPython's ``load_ipython_extension``)."""
    def memory_why(line: str = "") -> None:
        for said in report(shell):
            print(said)  # a magic's output is the kernel's cell output: printing is what it is for
    shell.register_magic_function(memory_why, "line", "memory_why")
