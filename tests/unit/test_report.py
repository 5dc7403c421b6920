"""The report renders records the harness made: ok, error, unsupported, timeout, crashed, missing."""
from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from helpers import ROOT, harness_cli
from reportkit import EVERY_OUTCOME, MISSING, make_run

from harness.reporting import aggregate


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("results") / "run-a"
    make_run(folder, EVERY_OUTCOME)
    return folder


def test_every_outcome_is_in_the_matrix(run_dir: Path) -> None:
    matrix = json.loads((run_dir / "matrix.json").read_text())
    statuses = {name: row["local"]["status"] for name, row in matrix["cells"].items()}
    assert statuses == {"alloc_free": "ok", "raises": "error", "missing_api": "unsupported", "hangs": "timeout",
                        "hard_exit": "crashed", MISSING[1]: "missing"}
    assert matrix["cells"]["alloc_free"]["local"]["steps"][0]["verdict"] == "released"
    assert matrix["note"] == "test run"


def test_matrix_json_follows_its_schema(run_dir: Path) -> None:
    from harness.model import schema as shipped

    assert shipped.MATRIX_SHIPPED.read_text(encoding="utf-8") == shipped.as_text(shipped.matrix_schema()), (
        "the shipped matrix.schema.json is MatrixDoc's: run python -m harness.model.schema")
    schema = json.loads((ROOT / "matrix" / "matrix.schema.json").read_text())
    jsonschema.validate(json.loads((run_dir / "matrix.json").read_text()), schema)


def test_markdown_shows_each_status(run_dir: Path) -> None:
    text = (run_dir / "matrix.md").read_text()
    for word in ("released", "**error** (ValueError: scenario bug on purpose)", "**unsupported**", "**timeout**",
                 "**crashed**", "**missing**", "Tolerances:"):
        assert word in text, word


def test_html_is_self_contained_and_carries_every_cell(run_dir: Path) -> None:
    page = (run_dir / "report.html").read_text()
    assert "<script src" not in page and "<link" not in page and "http://" not in page.replace("http://www.w3.org", "")
    data = json.loads(page.split('<script type="application/json" id="data">')[1].split("</script>")[0])
    assert set(data["details"]) == {f"{name}|local" for name, _, _ in EVERY_OUTCOME}
    assert len(data["details"]["alloc_free|local"]["timeline"]["samples"]) <= 200
    assert "scenario bug on purpose" in data["details"]["raises|local"]["error"]["traceback"]


def test_compare_highlights_a_changed_verdict(run_dir: Path, tmp_path: Path) -> None:
    other = tmp_path / "run-b"
    make_run(other, [("alloc_free", {"mib": 64}, None)])  # too small to judge: no-signal
    result = harness_cli("report", str(run_dir), "--compare", str(other))
    assert result.returncode == 0, result.stderr
    matrix = json.loads((run_dir / "matrix.json").read_text())
    assert matrix["compare"]["changed"] == [{"scenario": "alloc_free", "env": "local", "other_env": "local",
                                             "before": "no-signal", "after": "released"}]
    assert "Δ" in result.stdout and "1 changed since run-b" in result.stderr
    assert "### Changed since run-b" in (run_dir / "matrix.md").read_text()


def test_report_of_a_folder_without_results_is_one_line(tmp_path: Path) -> None:
    result = harness_cli("report", str(tmp_path))
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "holds no results" in result.stderr


def test_a_corrupt_record_is_reported_not_fatal(run_dir: Path, tmp_path: Path) -> None:
    broken = tmp_path / "run-c"
    broken.mkdir()
    (broken / "local").mkdir()
    (broken / "local" / "bad.json").write_text("{not json")
    matrix = aggregate.write_reports(broken)
    assert matrix["unreadable"][0]["path"].endswith("bad.json")


def test_a_truncated_record_is_named_and_its_cell_says_unreadable(run_dir: Path, tmp_path: Path) -> None:
    """A record cut short (a full disk, a copy interrupted) was shown as '? missing' without a word."""
    import shutil

    copy = tmp_path / "run-t"
    shutil.copytree(run_dir, copy)
    record = next(copy.glob("local/*.json"))
    name = json.loads(record.read_text())["scenario"]["name"]
    record.write_text(record.read_text()[:200])
    result = harness_cli("report", str(copy))
    assert result.returncode == 0, result.stderr
    assert f"warning: unreadable record {record}" in result.stderr.replace("\n", "")
    assert "Traceback" not in result.stderr
    matrix = json.loads((copy / "matrix.json").read_text())
    assert matrix["cells"][name]["local"]["status"] == "unreadable"
    assert "unreadable record" in matrix["cells"][name]["local"]["error"]


def test_compare_pairs_two_releases_of_a_framework_and_refuses_two_frameworks(tmp_path: Path) -> None:
    """TF 2.7.4 vs TF 2.21.0 on the same H100: columns host-tf-2.7.4 and host-tf-2.21.0 share no
    name; they pair by framework, and the cells whose verdicts differ are listed."""
    import shutil

    records = ROOT / "tests" / "data" / "records" / "compare"  # 3 cells each of h100-580.159.04-tf, -tf27, -docker-gpu
    new, old = tmp_path / "tf221", tmp_path / "tf27"
    shutil.copytree(records / "tf221", new)
    shutil.copytree(records / "tf27", old)
    result = harness_cli("report", str(new), "--compare", str(old))
    assert result.returncode == 0, result.stderr
    said = result.stderr.replace("\n", " ")
    assert "compared host-tf-2.21.0 with host-tf-2.7.4 of" in said and "(the same framework (tensorflow))" in said
    changed = json.loads((new / "matrix.json").read_text())["compare"]["changed"]
    assert any(c["scenario"] == "tf2/tf_function_training" for c in changed), changed
    assert all(c["env"] == "host-tf-2.21.0" and c["other_env"] == "host-tf-2.7.4" for c in changed)
    assert "changed since" in said and "nothing" not in (new / "matrix.md").read_text().split("### Changed since")[1]
    torch = tmp_path / "torch"
    shutil.copytree(records / "torch", torch)
    refused = harness_cli("report", str(torch), "--compare", str(old))
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1 and "nothing to compare" in refused.stderr


def test_a_re_render_keeps_the_runs_note_without_its_matrix_json(run_dir: Path, tmp_path: Path) -> None:
    """matrix.json is made again from the records (the references commit none): the run's own note lives in its
    manifest, so `report` on a folder without matrix.json still says it."""
    import shutil

    copy = tmp_path / "run-n"
    shutil.copytree(run_dir, copy)
    (copy / "matrix.json").unlink()
    assert json.loads((copy / "manifest.json").read_text())["note"] == "test run"
    result = harness_cli("report", str(copy))
    assert result.returncode == 0, result.stderr
    assert json.loads((copy / "matrix.json").read_text())["note"] == "test run"
