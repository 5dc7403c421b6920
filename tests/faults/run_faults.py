"""Fault injection: every hostile-but-realistic case the tool must survive, run for real, one table.

`nox -s faults` (or `python tests/faults/run_faults.py`): each case starts the real CLI (or, for a
file the CLI reads from the repository, the real loader) with real processes, signals and
filesystems, then checks what a user would: the exit code, the cell's status, one clear line and no
traceback, and whether anything measured was lost. The two filesystem cases need root (a small
tmpfs), the shared-virtualenv and image-identity cases PyPI; the docker cases (a failed build, a
lost engine: a second dockerd of its own) need an engine and root, and say so when there is none.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "faults"))
from docker_cases import failed_build_beside_an_env, image_identity, lost_engine  # noqa: E402
from faultkit import Outcome, cli, error_line, records  # noqa: E402
from helpers import DETACHING, default_sigint, processes_with  # noqa: E402

from harness.common.errors import UsageError  # noqa: E402
from harness.definitions import config  # noqa: E402
from harness.measurement import procs  # noqa: E402


def matrix_statuses(run_root: Path) -> dict[str, str]:
    (matrix,) = run_root.glob("*/matrix.json")
    cells = json.loads(matrix.read_text())["cells"]
    return {env + "/" + name.replace("/", "__"): c["status"] for name, row in cells.items() for env, c in row.items()}


def detached_child_timeout(tmp: Path) -> Outcome:
    script = tmp / "detach.py"
    script.write_text("import subprocess, sys\nchild = subprocess.Popen([sys.executable, '-c', "
                      "'import os, time; os.setsid(); time.sleep(600)'])\nchild.wait()\n")
    started = time.monotonic()
    result = cli("repro", str(script), "--interpreter", sys.executable, "--timeout", "10", "--results", str(tmp / "r"))
    took = time.monotonic() - started
    (record,) = records(tmp / "r").values()
    killed = record.get("killed") or []
    agree = matrix_statuses(tmp / "r") == {k: r["status"] for k, r in records(tmp / "r").items()}
    alive = [k["pid"] for k in killed if procs.alive(k["pid"])]  # a zombie left to an init that never reaps is dead
    ok = record["status"] == "timeout" and len(killed) == 2 and not alive and agree and took < 60
    return Outcome(str(result.returncode), record["status"], "no" if agree else "record and matrix disagree", ok,
                   f"fired after {took:.0f} s; killed {len(killed)} (script + detached child); alive after: {alive or 'none'}")


def ctrl_c_two_cells(tmp: Path) -> Outcome:
    other = tmp / "bin" / "python-b"
    other.parent.mkdir()
    other.symlink_to(sys.executable)
    marker = tmp / "second-time"
    script = tmp / "nap.py"
    script.write_text(f"import os, time\ntime.sleep(0 if os.path.exists({str(marker)!r}) else 60)\n")
    argv = [sys.executable, "-m", "harness", "repro", str(script), "--interpreter", sys.executable,
            "--interpreter", str(other), "--results", str(tmp / "r")]
    proc = subprocess.Popen(argv, cwd=ROOT, env=dict(os.environ, NO_COLOR="1", COLUMNS="200"), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=default_sigint)
    time.sleep(6)  # both cells are in their sleep
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    statuses = sorted(r["status"] for r in records(tmp / "r").values())
    (run_dir,) = [p for p in (tmp / "r").iterdir() if p.is_dir()]
    marker.write_text("")
    resumed = cli("matrix", "--resume", str(run_dir))
    after = sorted(r["status"] for r in records(tmp / "r").values())
    ok = statuses == ["interrupted", "interrupted"] and after == ["ok", "ok"] and str(run_dir) in stderr
    return Outcome(f"{proc.returncode}, resume {resumed.returncode}", f"{'+'.join(statuses)} -> {'+'.join(after)}",
                   "no", ok, "the message names the run folder; --resume ran both cells")


def shared_virtualenvs(tmp: Path) -> Outcome:
    code = ("import json, sys; from pathlib import Path; from harness.environments import venvs; "
            "from harness.definitions.config import EnvDef, VariantDef; from harness.environments.images import BuildOptions; "
            "e = EnvDef(name='six', family=('any',), python_version='%d.%d' % sys.version_info[:2], "
            "variants={'cpu': VariantDef(base='', packages=('six==1.16.0',))}); "
            "print(json.dumps(venvs.ensure(e, 'cpu', Path(sys.argv[1]), BuildOptions(), lambda t: None)))")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(tmp / "venvs")], cwd=ROOT, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
    outs = [p.communicate(timeout=600) for p in procs]
    codes = [p.returncode for p in procs]
    reused = sorted(json.loads(o.strip().splitlines()[-1])[1] for o, _ in outs) if codes == [0, 0] else []
    ok = codes == [0, 0] and reused == [False, True]
    return Outcome(str(codes), "built once, reused once" if ok else "; ".join(e[-200:] for _, e in outs), "no", ok,
                   "two runs at once: one builds under the lock, the other waits and reuses it")


def launcher_path(tmp: Path) -> Outcome:
    from harness.environments import venvs

    alias = tmp / f"python{sys.version_info[0]}.{sys.version_info[1]}"
    alias.symlink_to(sys.executable)
    env = config.EnvDef(name="x", family=("any",), python_version="3",
                        variants={"cpu": config.VariantDef(base="", packages=("six",))})
    same = venvs.definition_hash(env, "cpu", sys.executable) == venvs.definition_hash(env, "cpu", str(alias))
    return Outcome("-", "same key" if same else "rebuild", "no", same, "nox's python and the shell's: one virtualenv key")


def _mount(tmp: Path, size: int, read_only: bool = False) -> Path | None:
    where = tmp / f"fs{size}"
    where.mkdir()
    options = f"size={size}m" + (",ro" if read_only else "")
    if subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)], capture_output=True).returncode:
        return None
    return where


def _results_fault(tmp: Path, size: int, read_only: bool, script_text: str, words: tuple[str, ...]) -> Outcome:
    where = _mount(tmp, size, read_only)
    if where is None:
        return Outcome("-", "not run: mounting a tmpfs needs root", "-", True, "")
    try:
        script = tmp / "s.py"
        script.write_text(script_text.replace("WHERE", str(where)))
        result = cli("repro", str(script), "--interpreter", sys.executable, "--results", str(where))
        line = error_line(result)
        ok = result.returncode == 5 and all(w in line for w in words) and "Traceback" not in result.stderr
        return Outcome(str(result.returncode), "-", "no", ok, line)
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def read_only_results(tmp: Path) -> Outcome:
    return _results_fault(tmp, 8, True, "print('hi')\n", ("Read-only file system",))


def full_results(tmp: Path) -> Outcome:
    fill = ("with open('WHERE/ballast', 'wb') as f:\n    try:\n        while True:\n            f.write(bytes(1 << 20))\n"
            "    except OSError:\n        pass\n")
    return _results_fault(tmp, 80, False, fill, ("No space left on device",))


def _environments(tmp: Path, text: str, word: str) -> Outcome:
    path = tmp / "environments.toml"
    path.write_text(text)
    try:
        config.load_environments(path)
    except UsageError as exc:
        listed = str(exc).splitlines()[1:]
        return Outcome("2", "-", "no", any(word in x and x.strip().startswith("line ") for x in listed), listed[0].strip())
    return Outcome("0", "accepted", "-", False, "")


def environments_without_family(tmp: Path) -> Outcome:
    return _environments(tmp, '[environments.x]\ndockerfile = "images/torch"\n', "'family' is missing")


def packages_as_a_string(tmp: Path) -> Outcome:
    return _environments(tmp, '[environments.jax]\nfamily = ["jax"]\ndockerfile = "images/jax"\n'
                         '[environments.jax.variants.cpu]\nbase = "b"\npackages = "jax==0.10.2"\n', "must be a list")


def truncated_record(tmp: Path) -> Outcome:
    script = tmp / "s.py"
    script.write_text("x = bytearray(1 << 20)\ndel x\n")
    cli("repro", str(script), "--interpreter", sys.executable, "--results", str(tmp / "r"))
    (path,) = [p for p in (tmp / "r").glob("*/*/*.json") if p.parent.name != "logs"]
    path.write_text(path.read_text()[:100])
    result = cli("report", str(path.parent.parent))
    status = next(iter(matrix_statuses(tmp / "r").values()))
    ok = result.returncode == 0 and f"unreadable record {path}" in result.stderr.replace("\n", "") and status == "unreadable"
    return Outcome(str(result.returncode), status, "the record (named)", ok, "a warning names the file")


def import_forms(tmp: Path) -> Outcome:
    from harness.running import repro

    forms = ["import os, time, jax", "from jax import numpy", "import jax as j", "def f():\n    import jax",
             "try:\n    import jax\nexcept ImportError:\n    pass"]
    found = [("jax" in repro.script_families(f + "\n")) for f in forms]
    return Outcome("-", f"{sum(found)}/{len(forms)} forms", "no", all(found), "import a, b; from; as; in functions; in try")


def repro_on_a_directory(tmp: Path) -> Outcome:
    result = cli("repro", str(tmp))
    line = error_line(result)
    return Outcome(str(result.returncode), "-", "no", result.returncode == 2 and "is a directory" in line, line)


def stdin_reader(tmp: Path) -> Outcome:
    script = tmp / "s.py"
    script.write_text("import sys\nprint(len(sys.stdin.read()))\n")
    result = cli("repro", str(script), "--interpreter", sys.executable, "--results", str(tmp / "r"))
    ok = result.returncode == 0 and "reads standard input, which is not connected" in result.stdout
    return Outcome(str(result.returncode), "ok", "no", ok, "the report says stdin was not connected")


def foreign_variables(tmp: Path) -> Outcome:
    script = tmp / "s.py"
    script.write_text("pass\n")
    env = dict(os.environ, TF_CLI_CONFIG_FILE="/root/.terraformrc", XLA_PYTHON_CLIENT_PREALLOCATE="false")
    result = cli("repro", str(script), "--interpreter", sys.executable, "--results", str(tmp / "r"), env=env)
    (record,) = records(tmp / "r").values()
    seen = record.get("env_seen") or {}
    ok = "TF_CLI_CONFIG_FILE" not in seen and seen.get("XLA_PYTHON_CLIENT_PREALLOCATE") == "false"
    return Outcome(str(result.returncode), record["status"], "no", ok, f"recorded: {', '.join(sorted(seen)) or 'none'}")


def readme_commands(tmp: Path) -> Outcome:
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                             str(ROOT / "tests" / "unit" / "test_readme_commands.py")], capture_output=True, text=True,
                            cwd=ROOT / "tests", timeout=300)
    last = (result.stdout.strip().splitlines() or [""])[-1]
    return Outcome(str(result.returncode), "-", "no", result.returncode == 0, last)


def _detaching(tmp: Path, close: bool) -> Outcome:
    marker = f"harness-detached-{os.getpid()}-{int(time.monotonic() * 1000)}"
    script = tmp / "detaching.py"
    script.write_text(DETACHING.format(close=close, marker=marker))
    started = time.monotonic()
    result = cli("repro", str(script), "--interpreter", sys.executable, "--timeout", "30", "--results", str(tmp / "r"))
    took = time.monotonic() - started
    (record,) = records(tmp / "r").values()
    named = [k for k in record.get("killed") or [] if marker in k["command"]]
    alive = processes_with(marker)
    ok = result.returncode == 0 and record["status"] == "ok" and len(named) == 1 and not alive and took < 30
    pids = ", ".join(f"PID {k['pid']}" for k in named) or "none"
    return Outcome(str(result.returncode), record["status"], "no", ok,
                   f"ended in {took:.1f} s; named and killed: {pids}; alive after: {alive or 'none'}")


def detached_grandchild(tmp: Path) -> Outcome:
    return _detaching(tmp, False)


def daemon_without_stdio(tmp: Path) -> Outcome:
    return _detaching(tmp, True)


def syntax_error(tmp: Path) -> Outcome:
    script = tmp / "broken.py"
    script.write_text("import torch\nif True:\nprint(torch)\n")
    result = cli("repro", str(script), "--results", str(tmp / "r"))
    line = error_line(result)
    ok = result.returncode == 2 and f"{script}:3:" in line and not (tmp / "r").exists() and "Traceback" not in result.stderr
    return Outcome(str(result.returncode), "-", "no", ok, line[:160])


CASES: list[tuple[str, Callable[[Path], Outcome]]] = [
    ("detached child, --timeout 10", detached_child_timeout),
    ("setsid + fork: a grandchild keeps the pipes, --timeout 30", detached_grandchild),
    ("double fork, stdio closed (a daemon)", daemon_without_stdio),
    ("repro of a file with a syntax error", syntax_error),
    ("--with build fails beside a working env", failed_build_beside_an_env),
    ("the Docker engine dies mid-run, then --resume", lost_engine),
    ("same pins, other wheels: image identity", image_identity),
    ("Ctrl-C, two cells in flight, then --resume", ctrl_c_two_cells),
    ("two runs share .matrix-venvs/ at once", shared_virtualenvs),
    ("nox's python vs the shell's", launcher_path),
    ("results on a read-only filesystem", read_only_results),
    ("results disk filled during the run", full_results),
    ("environments.toml without family", environments_without_family),
    ('packages = "jax==0.10.2"', packages_as_a_string),
    ("report with a truncated record", truncated_record),
    ("import os, time, jax (and other forms)", import_forms),
    ("repro on a directory", repro_on_a_directory),
    ("a script that reads stdin", stdin_reader),
    ("TF_CLI_CONFIG_FILE in the shell", foreign_variables),
    ("every README command parses", readme_commands),
]


def main() -> int:
    console = Console(highlight=False)
    table = Table(title="fault injection", show_lines=False)
    for column in ("case", "exit", "status", "lost", "ok", "what was seen"):
        table.add_column(column, overflow="fold")
    failed = 0
    for name, case in CASES:
        with tempfile.TemporaryDirectory(prefix="harness-fault-") as tmp:
            try:
                outcome = case(Path(tmp))
            except Exception as exc:  # a fault case that itself breaks is a failure to report, not to hide
                outcome = Outcome("-", "-", "?", False, f"{type(exc).__name__}: {exc}"[:200])
        failed += not outcome.ok
        table.add_row(name, outcome.exit, outcome.status, outcome.lost, "✓" if outcome.ok else "✗", outcome.detail)
        console.print(f"{'✓' if outcome.ok else '✗'} {name}", style="dim")
    console.print(table)
    console.print(f"{len(CASES) - failed} of {len(CASES)} cases behave; {failed} do not")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
