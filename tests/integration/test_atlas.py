"""The atlas built from the committed references, as a reader opens it: headless Chromium on the
file:// site, no network, readable at 1400 and 390 px, a cell's evidence one click away; and
its dataset (atlas.json, atlas.csv) complete, with stable ids."""
from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess
import time
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
from helpers import ROOT, harness_cli
from test_report_browser import FLAGS

NO_NETWORK = ["--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9"]  # any request would fail, and show
PROBE = """<script>setTimeout(function () { var t = document.querySelector("table.grid"), s = document.querySelector(".scroll");
  document.body.dataset.probe = JSON.stringify({page: document.documentElement.scrollWidth, window: window.innerWidth,
    table: t.getBoundingClientRect().width, scroller: s.getBoundingClientRect().width,
    font: Math.round(parseFloat(getComputedStyle(t.querySelector("td.c") || t).fontSize))}); }, 500);</script></body>"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("atlas") / "atlas"
    began = time.monotonic()
    result = harness_cli("atlas", "--out", str(out), timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert time.monotonic() - began < 60
    return out


@pytest.fixture(scope="module")
def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        pytest.fail("no chromium: .ci/run installs Debian's chromium")
    return path


def _browse(chromium: str, url: str, profile: Path, width: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run([chromium, *FLAGS, *NO_NETWORK, f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
                           f"--window-size={width},900", "--dump-dom", url], capture_output=True, text=True, timeout=120)


def test_the_dataset_holds_every_reference_cell_with_stable_ids(site: Path) -> None:
    """atlas.json: flat lists (grid, runs, steps), each described by its schema; atlas.csv: the grid."""
    data = json.loads((site / "atlas.json").read_text())
    assert data["dataset_version"] == 4
    for name in ("grid", "runs", "steps"):
        rows = data[name]
        assert set(data["schema"][name]) == set(rows[0]) and len({r["id"] for r in rows}) == len(rows), name
    records = sum(1 for _ in (ROOT / "matrix" / "reference").rglob("*.json.gz"))
    assert data["cells"] == records == len(data["runs"]) == len({r["cell"] for r in data["steps"]})
    assert data["rules_version"] >= 14 and len(data["commit"]) == 40  # what judged every row
    import jsonschema

    schema = json.loads((site / "atlas.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    assert not [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(data)][:3]
    import hashlib

    assert all(hashlib.sha1((ROOT / "matrix" / "reference" / r["record"]).read_bytes()).hexdigest() == r["record_sha1"]
               for r in data["runs"])  # the committed file's sha1, as sha1sum gives it
    assert {r["stand_in"] != "" for r in data["runs"] if r["release"] == "1.8.0" and r["backend"] == "docker"} == {True}
    # how a release ran where not as its own install would: said on every run row of it (and in the grid's header)
    assert {r["ran_with"] for r in data["runs"] if r["release"] == "1.8.0" and r["hardware"] == "H200"} == {
        "a stand-in for tensorflow/tensorflow:1.8.0-gpu as its base"}
    assert "jaxlib 0.4.34 (not 0.4.35); nvidia-cuda-nvcc-cu12 12.6.85 added" in {r["ran_with"] for r in data["runs"]}
    assert "† ran with a stand-in for tensorflow/tensorflow:1.8.0-gpu as its base" in (site / "index.html").read_text()
    grid = data["grid"]
    assert {r["colour"] for r in grid} <= {"green", "amber", "red", "grey", "blue"}  # blue: borderline
    assert all(isinstance(r["turn"], bool) for r in grid)
    assert sum(r["runs"] for r in grid) <= records
    with open(site / "atlas.csv", newline="") as handle:
        table = list(csv.DictReader(handle))
    assert set(table[0].keys()) == set(data["schema"]["grid"]) and len(table) == len(grid)
    again = site.parent / "again"
    assert harness_cli("atlas", "--out", str(again), timeout=300).returncode == 0
    rebuilt = json.loads((again / "atlas.json").read_text())
    assert [r["id"] for r in rebuilt["steps"]] == [r["id"] for r in data["steps"]]
    assert [r["id"] for r in rebuilt["grid"]] == [r["id"] for r in grid]


def test_the_site_asks_nothing_of_the_network(site: Path) -> None:
    """Nothing a page loads comes from elsewhere; a link a reader may follow (an upstream report on
    the changes page) is an anchor, and only that."""
    external = re.compile(r"""(src|href)\s*=\s*["']?(https?:)?//|url\(\s*["']?(https?:)?//|@import""", re.I)
    followed = re.compile(r"""<a [^>]*href="https://github\.com/[^"]+"[^>]*>""")
    pages = [p for p in site.rglob("*.html")]
    assert pages and not [p for p in pages if external.search(followed.sub("", p.read_text(encoding="utf-8")))]
    changes = (site / "changes.html").read_text(encoding="utf-8")
    assert 'href="https://github.com/jax-ml/jax/issues/39145"' in changes  # the platform allocator's turn, reported


@pytest.mark.parametrize("width", [1400, 390])
def test_the_landing_grid_reads_at_desktop_and_phone_width(site: Path, chromium: str, tmp_path: Path, width: int) -> None:
    page = site / "index.html"
    probed = page.with_name(f"probed-{width}.html")
    probed.write_text(page.read_text(encoding="utf-8").replace("</body>", PROBE), encoding="utf-8")
    result = _browse(chromium, probed.as_uri(), tmp_path / "profile", width)
    dom = result.stdout
    errors = [x for x in result.stderr.splitlines() if "CONSOLE" in x and ("Error" in x or "Uncaught" in x)]
    assert not errors and "data-errors" not in dom
    probe = json.loads(unquote(dom.split('data-probe="', 1)[1].split('"', 1)[0].replace("&quot;", '"')))
    assert probe["page"] <= probe["window"]  # the page never scrolls sideways: each framework's table does
    assert probe["scroller"] <= probe["window"] and probe["font"] >= 11
    assert dom.count('<section class="fw">') >= 4 and "torch" in dom and "tensorflow" in dom
    # a table wider than the window says it scrolls; blank cells are in the legend
    assert re.search(r"<h2>tensorflow · GPU</h2><p class=\"note\">\d+ columns: the table scrolls sideways", dom)
    assert "blank: not measured there" in dom
    assert 'title="releases between 1.5.1 and 2.1.2+cu121 were not measured on this hardware"' in dom  # 1.6-2.0


def test_a_cells_evidence_is_one_click_away(site: Path, chromium: str, tmp_path: Path) -> None:
    landing = (site / "index.html").read_text(encoding="utf-8")
    link = re.search(r'<td class="c back-all[^"]*"[^>]*><a href="(runs/[^"]+)"', landing)
    assert link, "no cell links to its evidence"
    target = urlparse(link.group(1).replace("&amp;", "&"))
    assert (site / unquote(target.path)).is_file()
    result = _browse(chromium, (site / unquote(target.path)).as_uri() + "#" + target.fragment, tmp_path / "p", 1400)
    assert 'data-ready="1"' in result.stdout and "data-errors" not in result.stdout
    assert re.search(r'<div id="timeline" class="vega-embed"[^>]* data-drawn="[1-9]', result.stdout)  # its timeline, drawn
    assert re.search(r'<td class="cell [^"]* selected"', result.stdout)  # and its grid cell marked as the one shown
    technique = re.search(r'<th class="tech"><a href="(t/[^"]+)"', landing)
    assert technique and "remade by" in (site / technique.group(1)).read_text(encoding="utf-8")


PAGE_PROBE = """<script>setTimeout(function () { document.body.dataset.probe = JSON.stringify({
  page: document.documentElement.scrollWidth, window: window.innerWidth, rows: document.querySelectorAll("tr").length}); }, 300);
</script></body>"""


@pytest.mark.parametrize("width", [1400, 390])
def test_the_changes_page_and_a_cell_page_read_at_desktop_and_phone_width(site: Path, chromium: str, tmp_path: Path,
                                                                          width: int) -> None:
    """changes.html lists every turn, each linking the cell page it turned to; a cell page holds its
    runs' readings, the code, the citation and the command that measures it again. Neither scrolls
    sideways (its tables do) nor logs an error, nor does the longest release page."""
    changes = (site / "changes.html").read_text(encoding="utf-8")
    linked = re.findall(r'<a href="(c/[0-9a-f]{16}\.html)">', changes)
    assert linked and all((site / link).is_file() for link in linked)
    data = json.loads((site / "atlas.json").read_text())
    assert len(linked) == sum(1 for row in data["grid"] if row["turn"])  # the page and the dataset agree on the turns
    cell = (site / linked[0]).read_text(encoding="utf-8")
    assert "Cite this" in cell and "python -m harness matrix --scenario " in cell and "matrix/reference/" in cell
    widest = max((site / "r").glob("*.html"), key=lambda page: page.stat().st_size)  # a release page, its longest
    for page in (site / "changes.html", site / linked[0], widest):
        probed = page.with_name(f"probed-{width}-{page.name}")
        probed.write_text(page.read_text(encoding="utf-8").replace("</body>", PAGE_PROBE), encoding="utf-8")
        result = _browse(chromium, probed.as_uri(), tmp_path / f"profile-{page.name}", width)
        errors = [x for x in result.stderr.splitlines() if "CONSOLE" in x and ("Error" in x or "Uncaught" in x)]
        assert not errors, errors
        probe = json.loads(unquote(result.stdout.split('data-probe="', 1)[1].split('"', 1)[0].replace("&quot;", '"')))
        assert probe["page"] <= probe["window"] and probe["rows"] >= 2, (page.name, probe)


FILTER_PROBE = """<script>setTimeout(function () { var box = document.getElementById("filter");
  box.value = "torch H100 empty_cache"; box.dispatchEvent(new Event("input"));
  var shown = function (el) { return el.offsetParent !== null; }, pick = function (sel) {
    return [].filter.call(document.querySelectorAll(sel), shown); };
  document.body.dataset.probe = JSON.stringify({
    sections: pick("section.fw").map(function (s) { return s.querySelector("h2").textContent; }),
    rows: pick("tr.row").map(function (r) { return r.querySelector("th").textContent; }),
    cols: pick("th.col").map(function (h) { return h.textContent; })}); }, 300);
</script></body>"""


def test_the_filter_keeps_what_matches_every_word(site: Path, chromium: str, tmp_path: Path) -> None:
    """'torch H100 empty_cache': torch's GPU table only, its H100 columns, the rows about empty_cache."""
    page = site / "index.html"
    probed = page.with_name("probed-filter.html")
    probed.write_text(page.read_text(encoding="utf-8").replace("</body>", FILTER_PROBE), encoding="utf-8")
    result = _browse(chromium, probed.as_uri(), tmp_path / "profile-filter", 1400)
    probe = json.loads(unquote(result.stdout.split('data-probe="', 1)[1].split('"', 1)[0].replace("&quot;", '"')))
    assert probe["sections"] == ["torch · GPU"], probe["sections"]
    assert probe["rows"] and all("empty_cache" in row for row in probe["rows"])
    assert probe["cols"] and all("H100" in col for col in probe["cols"])
