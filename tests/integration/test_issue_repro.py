"""A bug report pasted on standard input, end to end: its code found, the release it states said with
its line before anything runs, that release made (a virtualenv from the package index) and run beside
today's environment, and one sentence per framework at the end of repro.md."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from helpers import ROOT

REPORT = '''### Description

`del` does not give the memory back until `jax.clear_caches()`.

```python
import jax
import jax.numpy as jnp

x = jnp.ones((4096, 4096))
y = jax.jit(lambda a: a * 2)(x)
del x, y
jax.clear_caches()
```

### System info (python version, jaxlib version, accelerator, etc.)

```
jax:    0.4.30
jaxlib: 0.4.30
numpy:  1.26.4
python: 3.11.7 (main, Dec 15 2023, 18:12:31) [GCC 11.2.0]
```
'''


def test_a_pasted_jax_report_runs_on_the_reporters_release_and_todays(tmp_path: Path) -> None:
    results = tmp_path / "results"
    done = subprocess.run([sys.executable, "-m", "harness", "repro", "-", "--backend", "venv", "--variant", "cpu",
                           "--venv-dir", str(tmp_path / "venvs"), "--results", str(results)], input=REPORT, cwd=tmp_path,
                          capture_output=True, text=True, timeout=1500,
                          env=dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1", COLUMNS="200"))
    assert done.returncode == 0, done.stderr[-3000:]
    said = done.stderr.splitlines()
    assert said[:5] == ["Code: block 1 of 2 (line 6), as pasted_block1.py; --block N runs another.",
                        "Versions the report states:",
                        "  jax 0.4.30: line 18, jax.print_environment_info(): jax:    0.4.30",
                        "  jaxlib 0.4.30: line 19, jax.print_environment_info(): jaxlib: 0.4.30",
                        "Runs jax 0.4.30 (the reporter's) beside today's environment."], said[:8]
    (run_dir,) = [p for p in results.iterdir() if p.is_dir() and p.name != "reports"]
    text = (run_dir / "repro.md").read_text()
    assert "**jax==0.4.30**: jax 0.4.30, jaxlib 0.4.30;" in text and "a virtualenv of jax==0.4.30" in text, text
    answer = next(line for line in text.splitlines() if line.startswith("- jax: "))
    assert answer.startswith("- jax: on the reporter's 0.4.30: ") and "; on today's 0.10.2: " in answer, answer
    assert answer in {f"- {line}" for line in said}  # the terminal says the same
    assert str(tmp_path) not in text and str(ROOT) not in text
