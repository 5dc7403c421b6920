"""Helpers shared by the tests (plain functions; fixtures live in conftest.py)."""
from __future__ import annotations

import glob
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "tests" / "scenarios"
TEST_IMAGE_PREFIX = "gpu-cleanup-matrix-test"  # the tests' images, never the user's gpu-cleanup-matrix/*


def default_sigint() -> None:
    """Popen's preexec_fn for a run a test will Ctrl-C: SIGINT as a terminal delivers it, also when
    the tests themselves were started with it ignored (a background job of a non-interactive shell
    ignores SIGINT, and Python then keeps ignoring it instead of raising KeyboardInterrupt)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def harness_cli(*args: str, cwd: Path | None = None, timeout: float = 120,
                env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m harness ARGS`` in a fresh interpreter, as a user would run it (``env``: added variables)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1", COLUMNS="200", **(env or {}))
    return subprocess.run([sys.executable, "-m", "harness", *args], capture_output=True, text=True,
                          cwd=cwd or ROOT, env=env, timeout=timeout)


def processes_with(marker: str) -> list[int]:
    """Live PIDs whose command line contains ``marker`` (to prove nothing is left running; a zombie
    whose parent is gone, left to an init that does not reap, has ended)."""
    from harness.measurement import procs

    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid() and procs.alive(int(entry)):
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if marker in cmdline:
                found.append(int(entry))
    return found


def old_pythons() -> list[str]:
    """Python 2.7 / 3.5 / 3.6 interpreters that really run here (pyenv installs included)."""
    found = []
    for name in ("python2.7", "python3.5", "python3.6"):
        candidates = glob.glob(os.path.expanduser(f"~/.pyenv/versions/{name[6:]}*/bin/{name}"))
        path = candidates[0] if candidates else shutil.which(name)
        if path and subprocess.run([path, "-c", "pass"], capture_output=True).returncode == 0:
            found.append(path)
    return found


# A script whose child leaves the session (setsid), forks a grandchild and exits at once; the
# grandchild becomes a long sleeper named by {marker}, keeping the cell's stdio or (close=True)
# closing it as a daemon does. The script's own process ends normally.
DETACHING = '''import os, sys, time
CLOSE = {close}
pid = os.fork()
if pid == 0:
    os.setsid()
    if os.fork() == 0:
        if CLOSE:
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            os.closerange(3, 256)
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(300)", "{marker}"])
    os._exit(0)
os.waitpid(pid, 0)
print("main process done")
'''


def broken_pin(tmp_path: Path) -> list[str]:
    """A folder index offering torch 0.0.1 whose wheel is not a wheel: the image build fails in pip."""
    wheels, index = tmp_path / "wheels", tmp_path / "index" / "torch"
    wheels.mkdir()
    index.mkdir(parents=True)
    name = "torch-0.0.1-py3-none-any.whl"
    (wheels / name).write_bytes(b"not a zip archive")
    (index / "index.html").write_text(f'<html><body><a href="{(wheels / name).as_uri()}">{name}</a></body></html>\n')
    return ["--with", "torch==0.0.1", "--index-url", index.parent.as_uri(), "--wheelhouse", str(wheels)]


def debian_package(path: Path, files: dict[str, bytes], links: dict[str, str] | None = None) -> Path:
    """A .deb as dpkg-deb lays one out (an ar archive: debian-binary, control.tar.xz, data.tar.xz), holding
    ``files`` and symbolic ``links`` (path: target) under their paths, for the code that unpacks Ubuntu's."""
    import io
    import tarfile
    import time

    def tar_xz(entries: dict[str, bytes], symlinks: dict[str, str]) -> bytes:
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w:xz") as tar:
            for name, data in entries.items():
                info = tarfile.TarInfo(f"./{name}")
                info.size, info.mode, info.mtime = len(data), 0o644, int(time.time())
                tar.addfile(info, io.BytesIO(data))
            for name, target in symlinks.items():
                info = tarfile.TarInfo(f"./{name}")
                info.type, info.linkname = tarfile.SYMTYPE, target
                tar.addfile(info)
        return buffer.getvalue()

    members = [("debian-binary", b"2.0\n"), ("control.tar.xz", tar_xz({"control": b"Package: fake\n"}, {})),
               ("data.tar.xz", tar_xz(files, links or {}))]
    out = bytearray(b"!<arch>\n")
    for name, data in members:
        out += f"{name:<16}{0:<12}{0:<6}{0:<6}{100644:<8}{len(data):<10}`\n".encode() + data
        out += b"\n" if len(data) % 2 else b""
    path.write_bytes(bytes(out))
    return path


def repro_record(tmp_path: Path, source: str, name: str = "leak.py") -> Any:
    """A script run as repro runs it, through the process backend on this Python, judged: its record."""
    from harness.judgement import verdicts
    from harness.measurement.backends.process import ProcessBackend
    from harness.measurement.nvml import Nvml
    from harness.measurement.runner import CellOptions, run_cell
    from harness.running import repro

    script = tmp_path / name
    script.write_text(source)
    options = CellOptions(run_id="r", run_dir=tmp_path / "r", env_name="local", env_facts={}, params={})
    record = run_cell(ProcessBackend(python=sys.executable), repro.script_scenario(script, plain=True), options,
                      Nvml(False, "not needed"))
    assert record["status"] == "ok", record.get("stderr_tail")
    record["verdicts"] = verdicts.judge(record)
    return record


def reference_matrix(run_dir: Path) -> Any:
    """A committed reference run's matrix.json as `report` writes it (made again from its records, never committed)."""
    import json

    from harness.reporting import aggregate

    return json.loads(json.dumps(aggregate.build_matrix(run_dir), default=str))
