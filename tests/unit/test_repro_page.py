"""repro's report.html is a repro page: a pasted report's run (a real one, tests/data/records/real-reports) titled by
the question, its answer above the table, the reporter's releases marked, no claims line, and no folder of the
machine that ran it; a script's run the same, with each environment's answer. `report RUN_DIR` writes the same."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from helpers import ROOT

from harness.cli import repro_issue
from harness.judgement.cell import read_judged
from harness.reporting import aggregate

RUNS = ROOT / "tests" / "data" / "records" / "real-reports"


def _page(run: Path) -> tuple[str, dict[str, object]]:
    html = (run / "report.html").read_text(encoding="utf-8")
    data = html.split('<script type="application/json" id="data">', 1)[1].split("</script>", 1)[0]
    return html, json.loads(data.replace("<\\/", "</"))


def _written(tmp_path: Path, report: str) -> Path:
    run = tmp_path / report
    shutil.copytree(RUNS / report, run)
    judged = read_judged(run)
    matrix = aggregate.write_reports(run, judged=judged)
    records = judged[0]
    repro_issue.write_block(run, records, Path(records[0]["scenario"]["path"]), matrix)
    return run


def test_a_pasted_reports_page_answers_it_and_marks_its_releases(tmp_path: Path) -> None:
    run = _written(tmp_path, "torch_86704")
    html, data = _page(run)
    assert "<title>Does the report reproduce? torch_86704_block1.py (host memory, " in html
    lead = html.split('<div class="lead">', 1)[1].split("</div>", 1)[0]
    assert lead.startswith("<p>Releases the report states: python 3.9 (line 9, prose); torch 1.12.1 (line 9, prose)"), lead
    # the answer per framework, as repro.md says it
    assert lead.split("</p>")[1] == "<p>torch: on the reporter&#39;s 1.12.1: cannot tell (no signal); on the reporter" \
        "&#39;s 1.13.1: cannot tell (no signal); on today&#39;s 2.13.0: cannot tell (no signal): nothing after the import " \
        "to judge; the import itself took 186.55 MiB on 1.12.1, 221.95 MiB on 1.13.1, 197.51 MiB on today&#39;s 2.13.0 of " \
        "host memory (the floor every verdict is judged from; a report about the import&#39;s own size compares these).", lead
    assert (run / "repro.md").read_text().count(lead.split("</p>")[1][3:].replace("&#39;", "'")) == 1
    matrix = data["matrix"]
    assert isinstance(matrix, dict) and matrix["repro"] is True
    assert matrix["marked"] == {"torch==1.12.1": "the report's release", "torch==1.13.1": "the report's release"}, matrix
    # the run was made in /tmp/real on another machine: none of its folders is on the page, what is in them is
    assert "/tmp/real" not in html and str(Path.home()) + "/" not in html
    assert '"interpreter":"torch==1.12.1-cpu/bin/python"' in html
    assert "Host memory cleanup matrix" not in html


def test_a_scripts_page_says_each_environments_answer(tmp_path: Path) -> None:
    run = tmp_path / "torch_29809"
    shutil.copytree(RUNS / "torch_29809", run)
    (run / "issue.json").unlink()  # as a script run: no report's plan
    judged = read_judged(run)
    matrix = aggregate.write_reports(run, judged=judged)
    repro_issue.write_block(run, judged[0], Path(judged[0][0]["scenario"]["path"]), matrix)
    html, data = _page(run)
    assert "<title>torch_29809_block1.py: host memory per environment (" in html
    assert '<div class="lead"><p>torch: ' in html and isinstance(data["matrix"], dict) and data["matrix"]["marked"] == {}
