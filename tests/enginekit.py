"""A Docker engine of the tests' own, to lose on purpose: a second dockerd on its own socket, data
root, runtime folder and bridge, never the engine the other tests (or a user) use; and the run
that loses it. Shared by tests/integration/test_cell_faults.py and `nox -s faults`.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from helpers import ROOT, harness_cli, processes_with


def can_start_engines() -> str:
    """Why a second engine cannot be started here, or ''."""
    if not shutil.which("dockerd") or not shutil.which("ip"):
        return "starting a second Docker engine needs dockerd and iproute2"
    return "" if os.geteuid() == 0 else "starting a second Docker engine needs root"


@dataclass
class SecondEngine:
    image: str  # copied in from the usual engine at start: what its cells run
    tag: str = field(default_factory=lambda: uuid.uuid4().hex[:8])
    proc: subprocess.Popen[bytes] | None = None
    starts: int = 0

    @property
    def root(self) -> Path:
        return Path("/tmp") / f"harness-engine-{self.tag}"  # short: a unix socket's path is limited

    @property
    def host(self) -> str:
        return f"unix://{self.root}/docker.sock"

    @property
    def bridge(self) -> str:
        return f"hgcm{self.tag[:6]}"  # its own: with --bridge=none a dockerd deletes docker0, the other engine's

    def open(self, *aliases: str) -> None:
        self.root.mkdir()
        subprocess.run(["ip", "link", "add", self.bridge, "type", "bridge"], check=True)
        self.start()
        saved = subprocess.Popen(["docker", "save", self.image], stdout=subprocess.PIPE)
        subprocess.run(["docker", "-H", self.host, "load"], stdin=saved.stdout, check=True, capture_output=True)
        saved.wait()
        assert saved.stdout is not None
        saved.stdout.close()
        for alias in aliases:
            subprocess.run(["docker", "-H", self.host, "tag", self.image, alias], check=True)

    def start(self) -> None:
        """Start (again): a killed engine leaves its pidfile and its containerd's state, which a new one
        refuses or waits on, so each start gets a fresh runtime folder; the data root (images) stays."""
        (self.root / "pid").unlink(missing_ok=True)
        self.starts += 1
        with open(self.root / "dockerd.log", "ab") as log:  # the engine keeps its own copy of the descriptor
            self.proc = subprocess.Popen(
                ["dockerd", "--data-root", str(self.root / "data"), "--exec-root", str(self.root / f"exec{self.starts}"),
                 "--pidfile", str(self.root / "pid"), "-H", self.host, "--iptables=false", "--ip6tables=false",
                 f"--bridge={self.bridge}"], stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        for _ in range(60):
            if subprocess.run(["docker", "-H", self.host, "info"], capture_output=True).returncode == 0:
                return
            time.sleep(0.5)
        raise RuntimeError(f"the second dockerd did not answer: {(self.root / 'dockerd.log').read_text()[-2000:]}")

    def kill(self) -> None:
        """The engine dies at once (SIGKILL), as in a crash: its containers' processes do not."""
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait()

    def close(self) -> None:
        ids = subprocess.run(["docker", "-H", self.host, "ps", "-aq"], capture_output=True, text=True).stdout.split()
        subprocess.run(["docker", "-H", self.host, "rm", "-f", *ids], capture_output=True)
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        with open("/proc/self/mounts") as mounts:  # network namespaces and the like, deepest first
            held = sorted((line.split()[1] for line in mounts if line.split()[1].startswith(str(self.root))), reverse=True)
        for path in held:
            subprocess.run(["umount", "-l", path], capture_output=True)
        for pid in processes_with(str(self.root)):  # the shims of containers a killed engine left
            os.kill(pid, signal.SIGKILL)
        subprocess.run(["ip", "link", "del", self.bridge], capture_output=True)
        shutil.rmtree(self.root, ignore_errors=True)


@dataclass
class LostEngineRun:
    exit_code: int
    took_s: float
    alive_after: list[int]
    cut: list[dict[str, Any]]
    last_line: str
    run_dir: Path
    resumed_exit: int
    resumed: list[str]


def _records(results: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in results.glob("*/*/*.json") if p.parent.name != "logs"]


def lose_engine_mid_run(engine: SecondEngine, tmp_path: Path) -> LostEngineRun:
    """Three cells (one image under three names), the first two in their sleep when the engine is
    killed; then the engine back and `--resume`, the sleep now 0 s."""
    marker = f"nap_{uuid.uuid4().hex[:12]}"
    script = tmp_path / f"{marker}.py"  # the name rides in the agent's command line: its processes are found by it
    script.write_text("import time\nimport nap_length\ntime.sleep(nap_length.SECONDS)\n")
    (tmp_path / "nap_length.py").write_text("SECONDS = 120\n")  # a module of its own: it goes where the script goes
    results = tmp_path / "r"
    argv = [sys.executable, "-m", "harness", "repro", str(script), "--image", engine.image, "--image", "harness-b:1",
            "--image", "harness-c:1", "--results", str(results)]
    env = dict(os.environ, NO_COLOR="1", COLUMNS="200", DOCKER_HOST=engine.host)
    began = time.monotonic()
    run = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    while not processes_with(marker) and time.monotonic() - began < 60:
        time.sleep(0.2)
    time.sleep(2)  # the cells in their sleep
    engine.kill()
    _, stderr = run.communicate(timeout=120)
    took = time.monotonic() - began
    alive, cut = processes_with(marker), _records(results)
    (run_dir,) = [p for p in results.iterdir() if p.is_dir()]
    engine.start()
    (tmp_path / "nap_length.py").write_text("SECONDS = 0\n")
    resumed = harness_cli("matrix", "--resume", str(run_dir), env={"DOCKER_HOST": engine.host})
    return LostEngineRun(run.returncode, took, alive, cut, (stderr.strip().splitlines() or [""])[-1], run_dir,
                         resumed.returncode, sorted(r["status"] for r in _records(results)))
