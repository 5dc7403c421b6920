"""A bug report pasted on standard input, end to end: its code found, the release it states said with
its line before anything runs, that release made (a virtualenv from the package index, on the reporter's
Python) and run beside today's environment, each with the package the code imports besides its framework
(psutil, as memory reports do), and one sentence per framework at the end of repro.md."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from helpers import ROOT

REPORT = '''### Description

`del` does not give the memory back until `jax.clear_caches()`.

```python
import jax
import jax.numpy as jnp
import psutil

print(psutil.Process().memory_info().rss)
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
    assert said[:8] == ["Code: block 1 of 2 (line 6), as pasted_block1.py; --block N runs another.",
                        "Versions the report states:",
                        "  jax 0.4.30: line 20, jax.print_environment_info(): jax:    0.4.30",
                        "  jaxlib 0.4.30: line 21, jax.print_environment_info(): jaxlib: 0.4.30",
                        "  python 3.11.7 (the interpreter): line 23, jax.print_environment_info(): python: 3.11.7 (main, "
                        "Dec 15 2023, 18:12:31) [GCC 11.2.0]",
                        "Python 3.11.7 (line 23, jax.print_environment_info()): the reporter's interpreter.",
                        "The code imports psutil besides its framework: installed in every environment (psutil in the "
                        "reporter's; --pip PKG==VER pins one everywhere).",
                        "Runs jax 0.4.30 (the reporter's) beside today's environment."], said[:10]
    (run_dir,) = [p for p in results.iterdir() if p.is_dir() and p.name != "reports"]
    text = (run_dir / "repro.md").read_text()
    assert "did not run" not in text and "No module named" not in done.stdout + done.stderr
    assert "**jax==0.4.30**: jax 0.4.30, jaxlib 0.4.30;" in text and "a virtualenv of jax==0.4.30" in text, text
    answer = next(line for line in text.splitlines() if line.startswith("- jax: "))
    assert answer.startswith("- jax: on the reporter's 0.4.30: ") and "; on today's 0.10.2: " in answer, answer
    assert answer in {f"- {line}" for line in said}  # the terminal says the same
    assert str(tmp_path) not in text and str(ROOT) not in text


LINE_BY_LINE = '''I run this in IPython, one line at a time, and the memory of the sum is never given back after `del`:

```python
import gc
import jax.numpy as jnp
x = jnp.ones((8192, 8192))
x + 1
del x
gc.collect()
```
'''


def _repro(tmp_path: Path, report: str, *extra: str) -> tuple[subprocess.CompletedProcess[str], str]:
    results = tmp_path / "results"
    tmp_path.mkdir(parents=True, exist_ok=True)
    done = subprocess.run([sys.executable, "-m", "harness", "repro", "-", "--backend", "venv", "--variant", "cpu",
                           "--venv-dir", str(tmp_path.parent / "venvs"), "--results", str(results), *extra], input=report,
                          cwd=tmp_path, capture_output=True, text=True, timeout=1500,
                          env=dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1", COLUMNS="200",
                                   XDG_CACHE_HOME=str(tmp_path / "cache")))
    assert done.returncode == 0, done.stderr[-3000:]
    (run_dir,) = [p for p in results.iterdir() if p.is_dir() and p.name != "reports"]
    return done, (run_dir / "repro.md").read_text()


def test_a_report_run_line_by_line_in_ipython_is_replayed_so(tmp_path: Path) -> None:
    """In IPython the bare `x + 1` keeps its 256 MiB in Out[4] after `del x`; as a script it is gone."""
    done, text = _repro(tmp_path / "ipython", LINE_BY_LINE)
    assert ("Replayed in an IPython shell, each top-level statement a cell: the report says it ran in IPython one line "
            "at a time (line 1); --as script replays it as a script.") in done.stderr.splitlines()
    assert "Out[4]" in text, text
    done, text = _repro(tmp_path / "script", LINE_BY_LINE, "--as", "script")
    assert "Replayed in an IPython shell" not in done.stderr and "Out[4]" not in text, text


SLOW = '''The memory is not given back (jax 0.4.30):

```python
import time
import jax.numpy as jnp

x = jnp.ones((4096, 4096))
print("SLOW started", flush=True)
time.sleep(15)
del x
```
'''


def test_an_interrupted_report_is_finished_by_the_command_it_names_and_report_keeps_its_answer(tmp_path: Path) -> None:
    """Ctrl-C (a real SIGINT) while the second release runs; the command the cut cell names finishes the run and
    writes repro.md as repro would, the report's answer included; `report RUN_DIR` writes it again, whole."""
    import signal

    results = tmp_path / "results"
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1", COLUMNS="200")
    argv = [sys.executable, "-m", "harness", "repro", "-", "--backend", "venv", "--variant", "cpu", "--venv-dir",
            str(tmp_path / "venvs"), "--results", str(results)]
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=tmp_path, env=env)
    assert proc.stdin is not None
    proc.stdin.write(SLOW)
    proc.stdin.close()
    proc.stdin = None  # written and closed: communicate() has nothing more to send
    began = time.monotonic()
    while time.monotonic() - began < 600 and proc.poll() is None:  # a cell's script is running: stop the run there
        if any("SLOW started" in p.read_text(errors="replace") for p in results.glob("*/logs/*/*.log")):
            proc.send_signal(signal.SIGINT)
            break
        time.sleep(0.2)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode != 0, stderr[-3000:]
    (run_dir,) = [p for p in results.iterdir() if p.is_dir() and p.name != "reports"]
    assert not (run_dir / "repro.md").exists()
    done = subprocess.run([sys.executable, "-m", "harness", "matrix", "--resume", str(run_dir)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    text = (run_dir / "repro.md").read_text()
    assert "### Does the report reproduce?" in text and "- jax: on the reporter's 0.4.30: " in text, text
    (run_dir / "repro.md").unlink()
    again = subprocess.run([sys.executable, "-m", "harness", "report", str(run_dir)], cwd=tmp_path, env=env,
                           capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr[-3000:]
    assert (run_dir / "repro.md").read_text() == text


def test_a_host_memory_report_without_a_framework_runs_on_its_packages_releases(tmp_path: Path) -> None:
    """numpy/numpy#12198 as pasted (its endless loop made 200,000 rounds): no framework, so numpy is what it is
    about: the stated 1.15.2 on the reporter's Python 3.6 where this host has it, beside today's numpy; the
    recarray boolean-index leak grows on 1.15.2 and not on today's."""
    report = (ROOT / "tests" / "data" / "issues" / "real" / "numpy_12198.md").read_text()
    done, text = _repro(tmp_path / "numpy", report)
    assert "Runs numpy 1.15.2 (the reporter's) beside today's " in done.stderr, done.stderr[-2000:]
    answer = next(line for line in text.splitlines() if line.startswith("- numpy: "))
    assert answer.startswith("- numpy: on the reporter's 1.15.2, said to have the bug: reproduces (") and (
        ": fixed between 1.15.2 and ") in answer, answer
