"""A long install says what it is doing while it runs, and which torch build it took: pip's lines
as they come (a real child process, its output streamed), the heartbeat, torch's own version file."""
from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.environments.install_progress import InstallProgress, torch_build
from harness.measurement import subproc

DATA = Path(__file__).resolve().parents[1] / "data" / "torch-version"
CHILD = "import sys, time\nfor i in range(3):\n    print('line', i, flush=True)\n    time.sleep(0.3)\n"


def test_each_line_is_seen_as_it_comes() -> None:
    seen: list[tuple[float, str]] = []
    began = time.monotonic()
    done = subproc.run([sys.executable, "-c", CHILD], timeout=30, on_line=lambda line: seen.append((time.monotonic(), line)))
    assert done.returncode == 0 and [line for _, line in seen] == ["line 0", "line 1", "line 2"]
    assert seen[0][0] - began < seen[-1][0] - began - 0.4  # the first came before the child ended
    assert done.stdout.splitlines() == ["line 0", "line 1", "line 2"]


def test_a_streamed_child_past_its_timeout_is_stopped() -> None:
    began = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        subproc.run([sys.executable, "-c", "import time\nprint('x', flush=True)\ntime.sleep(60)"], timeout=1,
                    on_line=lambda line: None)
    assert time.monotonic() - began < 10


def test_pips_fetches_are_said_with_their_sizes_and_the_time_every_beat(tmp_path: Path) -> None:
    said: list[str] = []
    wheel = tmp_path / "demo-1.0-py3-none-any.whl"
    with wheel.open("wb") as sparse:
        sparse.truncate(60 << 20)  # 60 MiB on disk as pip would find it in a wheelhouse
    small = tmp_path / "tiny-0.1-py3-none-any.whl"
    small.write_bytes(b"x" * 5000)
    with InstallProgress("torch==2.4.1", said.append, heartbeat_s=0.2) as progress:
        progress.line("Collecting torch==2.4.1")
        progress.line("  Downloading torch-2.4.1-cp311-cp311-manylinux1_x86_64.whl (797.1 MB)")
        progress.line(f"Processing {wheel}")
        progress.line(f"Processing {small}")  # counted, not said
        time.sleep(0.5)
    # downloaded is fetched; a wheelhouse's file is only unpacked
    assert said[:2] == ["torch==2.4.1: fetching torch 2.4.1 (760.17 MiB)", "torch==2.4.1: unpacking demo 1.0 (60.00 MiB)"]
    beats = [line for line in said if "still installing" in line]
    assert beats and beats[0] == "torch==2.4.1: still installing (0 s, 820.18 MiB of wheels so far)"
    count = len(said)
    time.sleep(0.5)
    assert len(said) == count  # no beat after the install


@pytest.mark.parametrize(("shipped", "said"), [("2.4.1-pypi.version.txt", "torch 2.4.1+cu121, the CUDA 12.1 build"),
                                               ("2.13.0+cpu.version.txt", "torch 2.13.0+cpu, the CPU build")])
def test_which_torch_build_a_site_holds(shipped: str, said: str, tmp_path: Path) -> None:
    """torch/version.py as the wheels ship it (PyPI's torch 2.4.1 and PyTorch's CPU 2.13.0, in tests/data)."""
    site = tmp_path / "venv" / "lib" / "python3.11" / "site-packages" / "torch"
    site.mkdir(parents=True)
    shutil.copy(DATA / shipped, site / "version.py")
    assert torch_build(tmp_path / "venv") == said
    assert torch_build(tmp_path / "elsewhere") is None
