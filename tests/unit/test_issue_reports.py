"""A pasted bug report read as repro reads it: the code block that runs, the releases it states in the
formats people paste (torch's collect_env, TensorFlow's templates old and new, JAX's environment info,
pip freeze, pip list, conda list, version prints, prose), the pins made of them, and the sentence
the judge gives per framework."""
from __future__ import annotations

from pathlib import Path

import pytest
from helpers import ROOT
from packaging.version import Version

from harness.common.errors import UsageError
from harness.judgement import issue_answer
from harness.judgement.answer import Answer
from harness.running import issue, issue_text

ISSUES = ROOT / "tests" / "data" / "issues"
EXPECTED = {  # report -> (the block that runs, {framework: the releases stated, in the report's order}, how)
    "torch_collect_env.md": (1, {"torch": ["1.7.1+cu110"]}, "collect_env"),
    "tf_template.md": (1, {"tensorflow": ["2.15"]}, "TensorFlow's issue template"),
    "tf_template_old.md": (1, {"tensorflow": ["2.4.1"]}, "TensorFlow's issue template"),
    "jax_template.md": (1, {"jax": ["0.4.23"]}, "jax.print_environment_info()"),
    "pip_freeze.md": (1, {"torch": ["2.0.1"]}, "pip freeze"),
    "pip_list.md": (2, {"jax": ["0.4.14"]}, "pip list"),
    "conda_list.md": (2, {"torch": ["1.12.1"]}, "conda list"),
    "version_print.md": (3, {"torch": ["1.10.0+cu113"], "tensorflow": ["2.9.1"]}, "version print"),
    "prose.md": (1, {"tensorflow": ["2.9.2", "2.11", "2.13"]}, "prose"),
}
RELEASES = {"torch": ["1.7.1", "1.10.0", "1.12.1", "2.0.1", "2.13.0"], "jax": ["0.4.14", "0.4.23", "0.10.2"],
            "tensorflow": ["2.4.1", "2.9.1", "2.9.2", "2.11.0", "2.11.1", "2.13.0", "2.13.1", "2.15.0", "2.15.1"]}


@pytest.fixture
def index(monkeypatch: pytest.MonkeyPatch) -> None:
    """The package index as these releases (the unit tests reach no network)."""
    monkeypatch.setattr(issue, "_index_releases", lambda package, url: {Version(v): object() for v in RELEASES[package]})


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_format_gives_its_releases_with_the_line_they_came_from(name: str, index: None, tmp_path: Path) -> None:
    block, wanted, how = EXPECTED[name]
    plan = issue.plan(ISSUES / name, tmp_path)
    assert plan.block.number == block and plan.script.read_text() == plan.block.python
    frameworks = {s.package: [] for s in plan.stated if s.package in wanted}
    for item in plan.stated:
        if item.package in frameworks:
            frameworks[item.package].append(item.version)
            lines = (ISSUES / name).read_text().splitlines()
            assert lines[item.line - 1].strip() == item.text  # the line as it reads in the report
    assert frameworks == wanted and any(s.how == how for s in plan.stated), plan.stated


def test_the_pins_are_exact_releases_a_minor_its_last_patch(index: None, tmp_path: Path) -> None:
    assert issue.plan(ISSUES / "torch_collect_env.md", tmp_path).pins == ["torch==1.7.1"]  # +cu110 dropped
    assert issue.plan(ISSUES / "tf_template.md", tmp_path).pins == ["tensorflow==2.15.1"]  # "2.15"
    plan = issue.plan(ISSUES / "prose.md", tmp_path)
    assert plan.pins == ["tensorflow==2.11.1", "tensorflow==2.13.1", "tensorflow==2.9.2"]  # said to leak first
    roles = {s.version: s.role for s in plan.stated}
    assert roles == {"2.9.2": "good", "2.11": "bad", "2.13": "bad"}  # "With TensorFlow 2.10 I did not try": none


def test_a_release_that_does_not_exist_is_said_with_its_line_and_not_run(index: None, tmp_path: Path) -> None:
    report = tmp_path / "typo.md"
    report.write_text("- TensorFlow version (use command below): 12.0\n\n```python\nimport tensorflow as tf\n```\n")
    plan = issue.plan(report, tmp_path / "out")
    assert plan.pins == [] and plan.releases == {}
    assert any(n.startswith("tensorflow 12.0 (line 1) is no release of tensorflow (the index has no 12.x release of "
                            "it): not run; --with tensorflow==VERSION") for n in plan.notes), plan.notes


def test_without_an_index_a_minor_release_is_refused_with_the_fix(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(issue, "_index_releases", lambda package, url: None)
    with pytest.raises(UsageError, match=r"tf_template.md:13: tensorflow 2.15 names no exact release .*--with tensorflow=="):
        issue.plan(ISSUES / "tf_template.md", tmp_path)
    assert issue.plan(ISSUES / "pip_freeze.md", tmp_path).pins == ["torch==2.0.1"]


def test_a_report_without_code_and_a_block_that_needs_data_are_refused(tmp_path: Path) -> None:
    words = tmp_path / "words.md"
    words.write_text("It leaks on torch 2.1.0.\n\n```\n$ nvidia-smi\n```\n")
    with pytest.raises(UsageError, match="words.md has no Python code block that imports"):
        issue.plan(words, tmp_path / "out")
    data = tmp_path / "data.md"
    data.write_text("```python\nimport torch\nx = torch.load('weights.pt')\ndel x\n```\n")
    with pytest.raises(UsageError, match=r"data.md:3: the code reads 'weights.pt', which is not beside the report"):
        issue.plan(data, tmp_path / "out")
    (tmp_path / "weights.pt").write_bytes(b"")
    assert issue.plan(data, tmp_path / "out").block.number == 1


def test_blocks_fenced_indented_and_interpreter_sessions() -> None:
    text = "    import torch\n    x = 1\n\n~~~py\n>>> import jax\n>>> jax.devices()\n[CpuDevice(id=0)]\n~~~\n"
    found = issue_text.blocks(text)
    assert [(b.info, b.first_line) for b in found] == [("indented", 1), ("py", 5)]
    assert found[1].python == "import jax\njax.devices()\n# [CpuDevice(id=0)]\n"
    with pytest.raises(UsageError, match="--block 3: r.md has 2 code block"):
        issue_text.choose(found, 3, "r.md")


def _answer(back: str, word: str) -> Answer:
    return Answer(back=back, word=word)


def test_the_judge_says_per_framework_whether_it_reproduces_and_where_it_turned() -> None:
    fixed = [issue_answer.Replay("torch", "2.1.0", False, _answer("none", "held by live objects"), said="bad"),
             issue_answer.Replay("torch", "2.13.0", True, _answer("all", "released"))]
    said = issue_answer.sentence("torch", fixed, "issue_block1.py")
    assert said.startswith("torch: on the reporter's 2.1.0, said to have the bug: reproduces (held by live objects); "
                           "on today's 2.13.0: does not reproduce (released): fixed between 2.1.0 and 2.13.0 (`")
    assert "--package torch --good 2.13.0 --bad 2.1.0` finds the release)." in said
    regressed = [issue_answer.Replay("jax", "0.4.23", False, _answer("all", "released")),
                 issue_answer.Replay("jax", "0.10.2", True, _answer("part", "cached in the pool"))]
    assert "it appeared between 0.4.23 and 0.10.2 (`" in issue_answer.sentence("jax", regressed, "s.py")
    lost = [issue_answer.Replay("torch", "1.7.1", False, why="no wheel of torch 1.7.1 for any Python here"),
            issue_answer.Replay("torch", "2.13.0", True, _answer("part", "cached in the pool"))]
    assert issue_answer.sentence("torch", lost, "s.py") == (
        "torch: the reporter's 1.7.1: could not run here (no wheel of torch 1.7.1 for any Python here); on today's 2.13.0: "
        "reproduces (cached in the pool).")


def test_a_reporters_release_that_could_not_be_made_is_said_with_why(index: None, tmp_path: Path) -> None:
    """Offline (a lent GPU machine): the reporter's pin is a skipped environment; the sentence keeps it,
    with why, beside the release that ran (records as the runner writes them)."""
    from harness.cli import repro_issue

    plan = issue.plan(ISSUES / "pip_freeze.md", tmp_path)
    skipped = {"env": {"name": "torch==2.0.1", "pin": "torch==2.0.1"}, "status": "skipped", "facts": {},
               "error": {"type": "Skipped", "message": "package index https://pypi.org/simple unreachable (no network)"}}
    done = repro_issue.replays(plan, [skipped])  # type: ignore[list-item]
    assert [(r.release, r.today, r.answer, r.why) for r in done] == [
        ("2.0.1", False, None, "Skipped: package index https://pypi.org/simple unreachable (no network)")]
    assert issue_answer.sentence("torch", done, "s.py") == (
        "torch: the reporter's 2.0.1: could not run here (Skipped: package index https://pypi.org/simple unreachable "
        "(no network)).")


def test_todays_release_is_the_environment_with_the_newest_pins() -> None:
    from harness.definitions import config

    envs = config.load_environments()
    assert issue.todays([envs[n] for n in ("tf1.8", "tf2.7", "tf-current")], ["tensorflow"]) == ["tf-current"]
    assert issue.todays([envs["torch"], envs["jax"]], ["torch"]) == ["torch"]


def test_a_leak_per_call_under_what_the_meter_judges_still_reproduces() -> None:
    """tensorflow#61791's shape, measured on a CPU host: model.predict in a loop of 100 keeps ~0.3 MiB a
    call on 2.11.1 and 2.13.1 (clear of the noise, under the 128 MiB RSS judges), flat on 2.9.2 and 2.21.0;
    the script has no cleanup line, so each cell's answer is "no signal" and the loop says it."""
    def loop(state: str) -> Answer:
        return Answer(back="n/a", word="no signal", loop={"state": state, "text": state})
    runs = [issue_answer.Replay("tensorflow", "2.13.1", False, loop("small"), said="bad"),
            issue_answer.Replay("tensorflow", "2.9.2", False, loop("flat"), said="good"),
            issue_answer.Replay("tensorflow", "2.21.0", True, loop("flat")),
            issue_answer.Replay("tensorflow", "2.11.1", False, loop("small"), said="bad")]
    said = issue_answer.sentence("tensorflow", runs, "prose_block1.py")
    assert said.startswith("tensorflow: on the reporter's 2.9.2, said to work: does not reproduce (no signal; in the "
                           "loop: flat); on the reporter's 2.11.1, said to have the bug: reproduces"), said
    assert ": it appeared between 2.9.2 and 2.11.1 (`" in said and "; fixed between 2.13.1 and 2.21.0 (`" in said
    assert "--good 2.9.2 --bad 2.11.1" in said and "--good 2.21.0 --bad 2.13.1" in said
    crashed = issue_answer.Replay("tensorflow", "2.9.2", False, Answer(back="n/a", word="error"), why="ImportError: x",
                                  ran=False)
    assert issue_answer.sentence("tensorflow", [crashed], "s.py") == (
        "tensorflow: on the reporter's 2.9.2: did not run to its end (ImportError: x).")


def test_two_releases_that_both_reproduce_are_told_apart_by_amounts() -> None:
    """tensorflow#33009's shape on a CPU: predict() in a loop grows 503 KiB a call on 2.0.4 and 19 KiB on 2.21.0
    (both clear of their noise): "mostly fixed", 26x less, with the bisect on growth; a torch report keeping
    606 MiB on 2.2.0 and 127 MiB on 2.13.0: "mostly fixed" on what is left; 96 against 128 MiB: no turn."""
    def grows(slope: int) -> Answer:
        return Answer(back="part", word="released", meter="rss",
                      loop={"site": "p.py:9", "slope": slope, "noise": 4096, "growing": True, "state": "small", "text": "x"})
    runs = [issue_answer.Replay("tensorflow", "2.0.4", False, grows(503 << 10), said="bad"),
            issue_answer.Replay("tensorflow", "2.21.0", True, grows(19 << 10))]
    said = issue_answer.sentence("tensorflow", runs, "r.py")
    assert ("mostly fixed between 2.0.4 and 2.21.0: 503.00 KiB per iteration on 2.0.4, 19.00 KiB on 2.21.0 (26.5x less; `"
            in said), said
    assert "--good 2.21.0 --bad 2.0.4 --criterion growth` finds the release)." in said

    def left(mib: int) -> Answer:
        return Answer(back="part", word="held by the process", meter="rss", left=mib << 20)
    kept = [issue_answer.Replay("torch", "2.2.0", False, left(606)), issue_answer.Replay("torch", "2.13.0", True, left(127))]
    assert "mostly fixed between 2.2.0 and 2.13.0: 606.00 MiB left on 2.2.0, 127.00 MiB on 2.13.0 (4.8x less; `" in (
        issue_answer.sentence("torch", kept, "r.py"))
    near = [issue_answer.Replay("torch", "2.2.0", False, left(96)), issue_answer.Replay("torch", "2.13.0", True, left(128))]
    assert issue_answer.sentence("torch", near, "r.py").endswith("it happens on every release that ran.")
