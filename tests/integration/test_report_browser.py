"""report.html in a real browser (Debian's chromium, headless): the matrix and a drawn timeline, no errors."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import ROOT, harness_cli
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
    # one series (RSS) on this machine, drawn by Vega as SVG
    assert re.search(r'<div id="timeline" class="vega-embed"[^>]* data-drawn="1"', dom)
    legend = dom[dom.index('<div class="legend">'):dom.index('<div id="timeline"')]
    assert "host RSS" in legend and "GPU" not in legend  # the legend names only what is drawn
    footer = dom[dom.index('<p class="note" id="tol">'):]
    assert footer.startswith('<p class="note" id="tol">Tolerances: host memory (RSS)') and "GPU" not in footer[:300]
    assert "Measured on: no GPU: host memory (RSS) only" in dom
    assert 'class="mark-line role-mark"' in dom and "after_del" in dom
    console = [line for line in result.stderr.splitlines() if "CONSOLE" in line]
    console_errors = [line for line in console if "Error" in line or "Uncaught" in line]
    assert not console_errors, console_errors
    shot = tmp_path / "report.png"
    _browse(chromium, url, tmp_path / "profile-shot", "--window-size=1400,1400", f"--screenshot={shot}")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000


# Measures the drawn page from inside: checkpoint labels' boxes, the page's own width against the
# window's, and whether the value column's right edge is reachable (inside the scrolling box).
PROBE = """<script>setTimeout(function () {
  var boxes = [].map.call(document.querySelectorAll("g.cp_labels text"), function (e) { return e.getBoundingClientRect(); });
  var hits = 0;
  for (var i = 0; i < boxes.length; i++) for (var j = i + 1; j < boxes.length; j++) { var a = boxes[i], b = boxes[j];
    if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) hits++; }
  var scroller = document.querySelector(".scroll"), last = document.querySelector("#matrix-table tr:nth-child(2) td:last-child");
  var top = function (id) { var e = document.getElementById(id); return e ? Math.round(e.getBoundingClientRect().top) : -1; };
  var chart = document.querySelector("#timeline svg");
  document.body.dataset.probe = JSON.stringify({labels: boxes.length, overlaps: hits, page: document.documentElement.scrollWidth,
    window: window.innerWidth, table: scroller.scrollWidth, scrolls: getComputedStyle(scroller).overflowX,
    cell: Math.round(last.getBoundingClientRect().width), matrix: top("matrix"), legend: top("legend"),
    chart: chart ? Math.round(chart.getBoundingClientRect().width) : 0,
    font: chart && chart.querySelector("text") ? Math.round(chart.querySelector("text").getBoundingClientRect().height) : 0});
}, 1500);</script></body>"""


def _probe(chromium: str, page: Path, tmp_path: Path, width: int, fragment: str) -> tuple[str, dict]:
    probed = page.with_name("probed.html")
    head, _, tail = page.read_text(encoding="utf-8").rpartition("</body>")  # the page's own end, not one in a script
    probed.write_text(head + PROBE + tail, encoding="utf-8")
    result = _browse(chromium, probed.as_uri() + fragment, tmp_path / f"profile-{width}", f"--window-size={width},900",
                     "--dump-dom")
    dom = result.stdout
    assert "data-errors" not in dom, result.stderr[-2000:]
    start = dom.index('data-probe="') + len('data-probe="')
    return dom, json.loads(dom[start:dom.index('"', start)].replace("&quot;", '"'))


def _reference(name: str, tmp_path: Path) -> Path:
    """A committed reference run, rendered by today's code (its records, not a stored page)."""
    run = tmp_path / name.replace("/", "_")
    shutil.copytree(ROOT / "matrix" / "reference" / name, run)
    assert harness_cli("report", str(run)).returncode == 0
    return run


def test_a_gpu_reference_report_answers_at_a_glance(chromium: str, tmp_path: Path) -> None:
    run = _reference("h100-580.159.04-tf27", tmp_path)
    page = run / "report.html"
    dom, probe = _probe(chromium, page, tmp_path, 1400, "#cell=tf2%2Ftf_function_training%7Chost-tf-2.7.4")
    assert "Measured on: NVIDIA H100 80GB HBM3; NVIDIA driver 580.159.04" in dom  # the GPU named at the top
    assert "all back:" in dom and "none back:" in dom and "not applicable:" in dom  # the legend
    assert "tensorflow 2.7.4" in dom and "CUDA 11.2" in dom  # the release in the column header
    # colour answers the driver question: cached and held with the memory still mapped are both "none"
    assert 'class="cell back-none" data-key="tf2/model_del|host-tf-2.7.4" data-verdict="cached"' in dom
    assert 'class="cell back-none" data-key="tf1/session_close|host-tf-2.7.4" data-verdict="held"' in dom
    assert ">GiB</text>" in dom and ">seconds from the cell" in dom  # both axes titled (two panels: whole, zoomed)
    # and ticked: time and bytes in each panel, and TF's own count (2.50 KiB live inside a ~77 GiB pool
    # mapped at the first touch) on an axis of its own
    assert dom.count('class="mark-rule role-axis-tick"') == 6 and 'data-own-axis="1"' in dom
    assert probe["labels"] >= 1 and probe["overlaps"] == 0
    _, phone = _probe(chromium, page, tmp_path, 390, "")
    assert phone["page"] <= phone["window"]  # the page itself never scrolls sideways: the table does
    assert phone["scrolls"] == "auto" and phone["cell"] >= 100  # and its value column keeps its width


def test_checkpoint_labels_never_overlap_in_a_long_loop(chromium: str, tmp_path: Path) -> None:
    run = _reference("h100-580.159.04-repro/torch_model_loop", tmp_path)  # 26 checkpoints, most in the last seconds
    dom, probe = _probe(chromium, run / "report.html", tmp_path, 1400, "")  # a one-cell report opens on its cell
    assert 'id="timeline"' in dom and dom.count("<li>") >= 26  # every checkpoint listed by its number
    assert probe["labels"] >= 2 and probe["overlaps"] == 0


def test_a_loop_that_grows_is_never_green_and_a_phone_sees_the_table_first(chromium: str, tmp_path: Path) -> None:
    run = _reference("h100-580.159.04-loops", tmp_path)
    dom, wide = _probe(chromium, run / "report.html", tmp_path, 1400, "")
    growing = re.search(r'class="cell (back-\w+)"[^>]*data-key="torch/loss_history_loop\|host-python3"', dom)
    assert growing and growing.group(1) == "back-part"  # released at the end, 64 MiB more per iteration before it
    flat = re.search(r'class="cell (back-\w+)"[^>]*data-key="torch/loss_history_loop@no_grad\|host-python3"', dom)
    assert flat and flat.group(1) == "back-all"
    rows = re.findall(r'data-key="(\w+)/', dom)
    assert rows[0] == "torch"  # the framework with the most answers leads
    assert wide["legend"] < wide["matrix"]
    _, phone = _probe(chromium, run / "report.html", tmp_path, 390, "")
    assert phone["matrix"] < phone["legend"] and phone["page"] <= phone["window"]  # the phone leads with the table


def test_a_repro_report_reads_on_a_phone(chromium: str, tmp_path: Path) -> None:
    run = _reference("h100-580.159.04-repro/torch_model_loop", tmp_path)
    _, phone = _probe(chromium, run / "report.html", tmp_path, 390, "")
    assert phone["page"] <= phone["window"]  # the environment table wraps or scrolls inside itself
    assert 0 < phone["chart"] <= phone["window"] and phone["font"] >= 8  # drawn at the phone's width: axes readable


def test_a_script_on_two_gpus_gets_a_line_per_gpu(chromium: str, tmp_path: Path) -> None:
    """`on_cuda1.py` under repro on two H100s (docker backend): the timeline sums the GPUs, and a
    second chart draws each GPU's device and process readings at every checkpoint."""
    run = _reference("h100x2-580.159.04-docker/runs/20261126T112727Z-0c79f3", tmp_path)
    dom, _ = _probe(chromium, run / "report.html", tmp_path, 1400, "")
    assert "Per GPU, at each checkpoint" in dom
    drawn = re.search(r'<div id="per-gpu"[^>]* data-drawn="(\d+)"', dom)
    assert drawn and int(drawn.group(1)) >= 4, dom[-3000:]
    for series in ("GPU 0, device", "GPU 1, device", "GPU 1, this cell's processes"):
        assert series in dom


def test_the_frameworks_own_count_gets_its_own_axis_inside_a_premapped_pool(chromium: str, tmp_path: Path) -> None:
    """TF 2.21 on an H100 maps ~77 GiB at the first touch; its own in-use count (2.25 GiB live) would be
    a line at 0 on that scale: it is drawn against its own axis, on the right, and the legend says so."""
    run = _reference("h100-580.159.04-tf", tmp_path)
    dom, _ = _probe(chromium, run / "report.html", tmp_path, 1400, "#cell=tf2%2Ftf_function_training%7Chost-tf-2.21.0")
    assert 'data-own-axis="1"' in dom, dom[-3000:]
    assert "framework in_use (GiB)" in dom and "framework in_use (at checkpoints), right axis" in dom


def test_a_run_without_a_gpu_counts_its_undecided_claims_as_matrix_md_does(chromium: str, tmp_path: Path) -> None:
    """The JAX sweep on a CPU: report.html's summary counted claim x environment (36) where matrix.md and the
    terminal count claims (4); both say the same number now, and the page is titled host memory."""
    run = _reference("sweeps/cpu-jax-0.4-0.12/20261124T015231Z-0af507", tmp_path)
    dom, _ = _probe(chromium, run / "report.html", tmp_path, 1400, "")
    said = re.search(r"no GPU here, so the (\d+) claims about GPU memory are not decided", dom)
    assert said, dom[-2000:]
    matrix_md = (run / "matrix.md").read_text(encoding="utf-8")
    assert f"no GPU here, so the {said.group(1)} claims" in matrix_md or f"{said.group(1)} claims" in matrix_md
    assert "<title>Host memory cleanup matrix, no GPU" in dom


# Where a cell's link leaves the page: the window's scroll, the cell page's heading against the window,
# and what the grid's n/a cells say beneath their word.
LANDING = """<script>setTimeout(function () {
  var h = document.querySelector("#detail h2"), r = h ? h.getBoundingClientRect() : null;
  var na = document.querySelectorAll("td.cell.back-na"), why = [].map.call(na, function (td) {
    var w = td.querySelector(".why"); return w ? w.textContent : ""; });
  document.body.dataset.probe = JSON.stringify({y: window.scrollY, inner: window.innerHeight,
    heading: r ? Math.round(r.top) : -1, title: h ? h.textContent : "", why: why});
}, 1500);</script></body>"""


def test_a_cell_link_opens_with_the_cell_in_view_and_na_cells_say_why(chromium: str, tmp_path: Path) -> None:
    """A link to a cell used to scroll to a page drawn below the grid (a blank window in a headless
    shot); the cell's page is now the page's top. A cell that is not judged says why where it is shown."""
    run = _reference("sweeps/cpu-jax-0.4-0.12/20261124T015231Z-0af507", tmp_path)
    page = run / "report.html"
    head, _, tail = page.read_text(encoding="utf-8").rpartition("</body>")
    probed = page.with_name("landing.html")
    probed.write_text(head + LANDING + tail, encoding="utf-8")
    url = probed.as_uri() + "#cell=jax%2Fjit_cache_clear%7Cjax%3D%3D0.4.38"
    dom = _browse(chromium, url, tmp_path / "profile-landing", "--window-size=1400,900", "--dump-dom").stdout
    start = dom.index('data-probe="') + len('data-probe="')
    probe = json.loads(dom[start:dom.index('"', start)].replace("&quot;", '"'))
    assert 0 <= probe["heading"] < probe["inner"] and probe["title"].startswith("jax/jit_cache_clear @ "), probe
    assert probe["why"] and all(probe["why"]), probe["why"]  # every n/a cell: the GPU-only reason, or why it was skipped
    assert any("about GPU memory" in why for why in probe["why"]) and any(why.startswith("Skipped: ") for why in probe["why"])
    shot = tmp_path / "landing.png"
    _browse(chromium, url, tmp_path / "profile-landing-shot", "--window-size=1400,900", f"--screenshot={shot}")
    assert shot.stat().st_size > 20_000  # drawn, not a blank window (a blank one is ~6 KB)


def test_a_repro_page_draws_the_answer_and_the_reporters_column(chromium: str, tmp_path: Path) -> None:
    """A real pasted report's run (tests/data/records/real-reports) re-rendered by `report RUN_DIR`: the page opens
    with whether it reproduces, marks the report's releases, says no claims line, and the browser logs no error."""
    run = tmp_path / "torch_86704"
    shutil.copytree(ROOT / "tests" / "data" / "records" / "real-reports" / "torch_86704", run)
    done = harness_cli("report", str(run))
    assert done.returncode == 0, done.stderr[-2000:]
    result = _browse(chromium, (run / "report.html").as_uri(), tmp_path / "profile", "--dump-dom")
    dom = result.stdout
    assert 'data-ready="1"' in dom and "data-errors" not in dom, result.stderr[-2000:]
    assert "<h1>Does the report reproduce? torch_86704_block1.py (host memory, " in dom
    assert dom.count('<div class="mark">the report\'s release</div>') == 2, dom[:3000]
    summary = dom.split('id="summary">', 1)[1].split("</div>", 1)[0]
    assert summary and "claims" not in summary, summary
    assert "/tmp/real" not in dom
    errors = [line for line in result.stderr.splitlines() if "CONSOLE" in line and ("Error" in line or "Uncaught" in line)]
    assert not errors, errors
