"""`%load_ext gpu_cleanup_matrix` and `%memory_why` in a real IPython shell (IPython as the tool installs it for this
Python, environments/ipython_site.py): what holds memory now, with no replay, named as a notebook user knows it
(`Out[3]`, a list that keeps buffers), in repro.md's words; a module of the user's called `holders` is left alone."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from helpers import ROOT

from harness.environments import ipython_site
from harness.environments.images import BuildOptions

SESSION = '''
import sys
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
for cell in ["%load_ext gpu_cleanup_matrix", "import holders", "kept = [bytearray(32 << 20) for _ in range(3)]",
             "bytearray(64 << 20)", "%memory_why", "print('MINE', holders.MINE)"]:
    shell.run_cell(cell, store_history=True)
'''


def test_memory_why_names_what_holds_memory_in_a_running_kernel(tmp_path: Path) -> None:
    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    site, _ = ipython_site.ensure(python, BuildOptions())
    (tmp_path / "holders.py").write_text("MINE = 'the user module'\n")  # the agent's module of that name is private
    done = subprocess.run([sys.executable, "-c", SESSION], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT), str(site)])))
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    assert "What holds the host memory now (" in out, out
    assert ("- IPython's output history keeps what the last line of cell 4 showed (`Out[4]`, also `_4`): 1 array "
            "(64.00 MiB)") in out, out
    assert "- `kept` (list of 3) keeps 3 arrays (96.00 MiB): `del kept` (or `kept = None`) to free them." in out, out
    assert "MINE the user module" in out
