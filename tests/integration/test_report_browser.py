"""report.html in a real browser (Debian's chromium, headless): the matrix and a drawn timeline, no errors."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from reportkit import EVERY_OUTCOME, make_run

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--hide-scrollbars", "--virtual-time-budget=5000"]


@pytest.fixture(scope="module")
def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI=true but no chromium: .ci/run installs Debian's chromium")
        pytest.skip("no chromium here (apt-get install chromium)")
    return path


def _browse(chromium: str, url: str, profile: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([chromium, *FLAGS, f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0", *extra, url],
                          capture_output=True, text=True, timeout=120)


def test_report_renders_the_matrix_and_a_timeline(chromium: str, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    make_run(run_dir, EVERY_OUTCOME)
    url = (run_dir / "report.html").as_uri() + "#cell=alloc_free%7Clocal"
    result = _browse(chromium, url, tmp_path / "profile-dom", "--dump-dom")
    dom = result.stdout
    assert 'data-ready="1"' in dom, result.stderr[-2000:]
    assert "data-errors" not in dom
    assert 'id="matrix-table"' in dom and dom.count('class="cell ') == 6
    assert '<svg width="900" height="260" id="timeline" data-drawn="1">' in dom  # RSS only on this machine
    assert "<polyline" in dom and "after_del" in dom
    console = [line for line in result.stderr.splitlines() if "CONSOLE" in line]
    console_errors = [line for line in console if "Error" in line or "Uncaught" in line]
    assert not console_errors, console_errors
    shot = tmp_path / "report.png"
    _browse(chromium, url, tmp_path / "profile-shot", "--window-size=1400,1400", f"--screenshot={shot}")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
