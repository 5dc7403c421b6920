"""What real reports state, read as pasted (tests/data/issues/real, each from a public thread): the releases
with their roles, the reporter's Python, the other packages the code imports, and the pins that run. Each
case names the text it came from; none was written to fit the reader."""
from __future__ import annotations

from pathlib import Path

import pytest
from helpers import ROOT
from packaging.version import Version

from harness.common.errors import UsageError
from harness.running import issue, issue_prose

REAL = ROOT / "tests" / "data" / "issues" / "real"
INDEX = {"numpy": ["1.15.2", "1.15.4", "2.3.5"],
         "tensorflow": ["1.1.0", "1.2.0", "1.2.1", "1.14.0", "2.0.0", "2.0.4", "2.12.0", "2.12.1", "2.13.0", "2.13.1",
                        "2.15.0", "2.15.1", "2.16.1"],
         "torch": ["1.0.0", "1.1.0", "1.2.0", "1.12.0", "1.12.1", "1.13.0", "1.13.1", "2.0.0"],
         "jax": ["0.2.9", "0.2.12", "0.4.13", "0.4.16", "0.4.35"]}
# report -> ({(package, release): role} of what it states, the reporter's Python, other packages, the pins that run)
EXPECTED: dict[str, tuple[dict[tuple[str, str], str], str | None, list[str], list[str]]] = {
    # "2.0.0 (problem disappears on ... 1.14.0)", and "happens on v2.0 ... disappears ... on v1.14" in prose
    "tf_33009.md": ({("tensorflow", "2.0.0"): "bad", ("tensorflow", "1.14.0"): "good"}, "3.6.8", [],
                    ["tensorflow==2.0.0", "tensorflow==1.14.0"]),
    # the template's "1. TF 1.0: ... 2. TF 2.0:" is not the reporter's: no TF 1.0
    "tf_34579.md": ({("tensorflow", "2.0.0"): ""}, "3.6.8", ["psutil"], ["tensorflow==2.0.0"]),
    # "leak memory in python 3.11" is the interpreter, never TensorFlow 3.11
    "tf_62551.md": ({("tensorflow", "2.15"): ""}, "3.11.2", ["psutil"], ["tensorflow==2.15.1"]),
    "tf_60131.md": ({("tensorflow", "2.12.0"): "", ("psutil", "5.9.4"): ""}, "3.11.2", ["psutil==5.9.4"],
                    ["tensorflow==2.12.0,psutil==5.9.4"]),
    "tf_61791.md": ({("tensorflow", "2.13"): "", ("psutil", "5.9.5"): ""}, None, ["psutil==5.9.5"],
                    ["tensorflow==2.13.1,psutil==5.9.5"]),
    "tf_11721.md": ({("tensorflow", "1.1"): "bad", ("tensorflow", "1.2"): "bad"}, None, [],
                    ["tensorflow==1.1.0", "tensorflow==1.2.1"]),
    # "With TensorFlow `2.15.1` (instead of `2.16.1`), however, the memory usage does not explode"
    "keras_19500.md": ({("tensorflow", "2.15.1"): "good"}, "3.12.2", ["psutil"], ["tensorflow==2.15.1"]),
    # the jaxlib stated beside each jax release is pinned with it (no jaxlib 0.2.9 exists to pair by number)
    "jax_6520.md": ({("jax", "0.2.9"): "", ("jaxlib", "0.1.59"): "", ("jax", "0.2.12"): "", ("jaxlib", "0.1.65"): ""},
                    None, ["psutil"], ["jax==0.2.9,jaxlib==0.1.59", "jax==0.2.12,jaxlib==0.1.65"]),
    "jax_25184.md": ({("jax", "0.4.35"): "", ("jaxlib", "0.4.35"): ""}, "3.10.8", [], ["jax==0.4.35"]),
    # no framework: numpy is the subject, its stated release beside today's (the index's newest)
    "numpy_12198.md": ({("numpy", "1.15.2"): "bad"}, "3.6.6", [], ["numpy==1.15.2", "numpy==2.3.5"]),
    # a nightly the index lacks runs as its nearest release, said
    "torch_86704.md": ({("torch", "1.12.1"): "", ("torch", "1.14.0.dev20221011"): ""}, "3.9", ["psutil"],
                       ["torch==1.12.1", "torch==1.13.1"]),
    # collect_env's "CUDA used to build PyTorch: 9.0.176" is CUDA's; the code is a four-space indented block
    "torch_16445.md": ({("torch", "1.0.0"): ""}, "3.6", [], ["torch==1.0.0"]),
    # "in torch>=2.0.0 torchvision>=0.15.1, cpu memory leaks; ... in torch==0.13.0 torchvision==0.14.0, cpu memory
    # does not leak": a lower bound states its release; 0.13.0 is no torch release (a typo), said and not run
    "torch_108334.md": ({("torch", "2.0.0"): "bad", ("torchvision", "0.15.1"): "bad", ("torch", "0.13.0"): "good",
                         ("torchvision", "0.14.0"): "good"}, None, ["psutil", "torchvision==0.15.1"],
                        ["torch==2.0.0,torchvision==0.15.1"]),
    # PyTorch's 2019 template: "- PyTorch Version: 1.0.0, 1.1.0, 1.2.0" is three releases of the reporter's; the prose
    # "On pytorch==0.4.1, `torch.tensor(a)` throws" names a release, not one the report ran
    "torch_24200.md": ({("torch", "1.0.0"): "", ("torch", "1.1.0"): "", ("torch", "1.2.0"): "", ("torch", "0.4.1"): ""},
                       "3.6.8", ["psutil"], ["torch==1.0.0", "torch==1.1.0", "torch==1.2.0"]),
    # no versions at all: today's only, with memory_profiler (its `@profile`) installed as memory-profiler
    "torch_29809.md": ({}, None, ["memory-profiler"], []),
}


@pytest.fixture
def index(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(issue, "_index_releases", lambda package, url: {Version(v): object() for v in INDEX[package]})


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_real_report_is_read_as_pasted(name: str, index: None, tmp_path: Path) -> None:
    roles, python, packages, pins = EXPECTED[name]
    plan = issue.plan(REAL / name, tmp_path)
    got = {(s.package, s.version): s.role for s in plan.stated if s.package != "python"}
    assert got == roles, plan.stated
    assert (plan.python.version if plan.python else None) == python
    assert plan.packages == packages and plan.pins == pins
    lines = (REAL / name).read_text().splitlines()
    assert all(lines[s.line - 1].strip() == s.text for s in plan.stated)  # each with the line it came from


def test_a_release_the_index_lacks_runs_as_its_nearest_and_says_so(index: None, tmp_path: Path) -> None:
    plan = issue.plan(REAL / "torch_86704.md", tmp_path)
    assert plan.notes == ["torch 1.14.0.dev20221011 (line 24) is not on the package index: its nearest release 1.13.1 "
                          "runs instead (--with torch==VERSION runs another)"]
    found = [Version(v) for v in INDEX["jax"]]
    assert issue.nearest(Version("0.4.14"), found) == Version("0.4.13")  # jax 0.4.14, JAX's 2023 template answer
    assert issue.nearest(Version("3.11"), found) is None  # no release of that major: a misreading, refused


@pytest.mark.parametrize(("sentence", "said"), [
    # each from a real thread (its repository and number)
    ("The problem happens on v2.0 (GPU or CPU) of tensorflow, but disappears when running identical code on v1.14.",
     [("tensorflow", "2.0", "bad"), ("tensorflow", "1.14", "good")]),  # tensorflow#33009
    ("Basic tensorflow calls leak memory in python 3.11", []),  # tensorflow#62551: the interpreter
    ("With TensorFlow `2.15.1` (instead of `2.16.1`), however, the memory usage does not explode:",
     [("tensorflow", "2.15.1", "good")]),  # keras#19500
    ("when I execute the following code in torch==0.13.0 torchvision==0.14.0, cpu memory does not leak.",
     [("torch", "0.13.0", "good"), ("torchvision", "0.14.0", "good")]),  # pytorch#108334
    ("CUDA 11.6, python 3.9 pytorch 1.12.1 vs 1.14 master", [("torch", "1.12.1", "")]),  # pytorch#86704
    ("It does not reproduce on 1.13.0 for me.", [("tensorflow", "1.13.0", "good")]),  # a "good" said by negation
])
def test_a_sentence_says_which_release_has_the_bug(sentence: str, said: list[tuple[str, str, str]]) -> None:
    names = {"torch": "torch", "pytorch": "torch", "tensorflow": "tensorflow", "tf": "tensorflow", "torchvision": "torchvision"}
    assert issue_prose.releases(sentence, names, "tensorflow") == said


def test_html_comments_and_the_templates_instructions_are_not_read(index: None, tmp_path: Path) -> None:
    """GitHub's issue forms put their instructions in HTML comments; a release there is not the reporter's."""
    report = tmp_path / "r.md"
    report.write_text("<!-- Please give the TensorFlow version, e.g.\nTensorFlow 2.15.0 works\n-->\n### TensorFlow version\n\n"
                      "2.13\n\n```python\nimport tensorflow as tf\nx = tf.zeros(1)\n```\n")
    plan = issue.plan(report, tmp_path / "out")
    assert [(s.package, s.version, s.line) for s in plan.stated] == [("tensorflow", "2.13", 4)]


@pytest.mark.parametrize(("name", "way", "per_statement"), [
    ("torch_86704.md", "ipython", True),  # >>> prompts
    ("tf_61791.md", "ipython", False),  # a Colab cell: !pip install lines
    ("tf_33009.md", "script", False),
    ("tf_62551.md", "script", False),
    ("jax_6520.md", "script", False),  # "I've tested it locally and on colab": a script too
])
def test_a_report_is_replayed_the_way_it_ran(name: str, way: str, per_statement: bool, index: None,
                                             tmp_path: Path) -> None:
    plan = issue.plan(REAL / name, tmp_path)
    assert (plan.replay.way, plan.replay.per_statement) == (way, per_statement), plan.replay
    text = plan.script.read_text()
    assert text.startswith("# %%\n") == (way == "ipython")
    if name == "tf_61791.md":  # the notebook's install lines reach the runner as they were (it lists them)
        assert "\n!pip install psutil==5.9.5\n" in text
    assert issue.plan(REAL / name, tmp_path, replay_as="script").replay.way == "script"


def test_a_session_pasted_with_ipython_prompts_becomes_a_cell_per_statement(tmp_path: Path) -> None:
    report = tmp_path / "r.md"
    report.write_text("```\nIn [1]: import torch\n\nIn [2]: x = torch.ones(4,\n   ...:     4)\n\nIn [3]: x.sum()\n"
                      "Out[3]: tensor(16.)\n\nIn [4]: del x\n```\n")
    plan = issue.plan(report, tmp_path / "out")
    assert plan.replay.way == "ipython" and "In [n]: prompts" in plan.replay.why
    assert plan.script.read_text() == ("# %%\nimport torch\n# %%\nx = torch.ones(4,\n    4)\n# %%\nx.sum()\n"
                                       "# Out[3]: tensor(16.)\n# %%\ndel x\n")


def test_jaxs_2023_template_answer_is_read() -> None:
    """"jax-0.4.14, jaxlib-0.4.14" under JAX's "What jax/jaxlib version are you using?" (the form a report of this
    issue's round gave), and "jax==0.4.4" under the same heading (jax-ml/jax#14934)."""
    from harness.running import issue_versions

    lines = ["### What jax/jaxlib version are you using?", "", "jax-0.4.14, jaxlib-0.4.14", "", "jax==0.4.4"]
    found = [(s.package, s.version, s.how) for s in issue_versions.stated(lines, set(), set(), "jax")]
    assert found == [("jax", "0.4.14", "JAX's issue template"), ("jaxlib", "0.4.14", "JAX's issue template"),
                     ("jax", "0.4.4", "pip freeze")]


def test_a_typo_release_is_said_and_not_run(index: None, tmp_path: Path) -> None:
    """torch#108334 wrote torch==0.13.0 (it meant 1.13.0, beside torchvision 0.14.0): no release is near it."""
    plan = issue.plan(REAL / "torch_108334.md", tmp_path)
    assert "torch 0.13.0 (line 3) is no release of torch (the index has no 0.x release of it): not run" in plan.notes[0]


def test_a_block_that_is_not_python_as_pasted_is_refused_with_its_line(tmp_path: Path) -> None:
    """torch#38717's demo assigns to a call (`bboxs.size(0) = 1 or 2`): the line and Python's reason, nothing run."""
    with pytest.raises(UsageError, match=r"torch_38717.md: block 1 \(line 12\) is not Python as pasted, so nothing "
                                         r"ran: line 14 \(`bboxs.size\(0\) = 1 or 2`\): cannot assign to function call"):
        issue.plan(REAL / "torch_38717.md", tmp_path)


def test_a_release_said_both_to_work_and_to_leak_is_run_to_decide(index: None, tmp_path: Path) -> None:
    """Two sentences that disagree on one release (a thread's edits often do): no role, both lines said."""
    report = tmp_path / "both.md"
    report.write_text("It leaks on torch 1.13.1.\n\nUpdate: with torch 1.13.1 it does not leak any more.\n\n"
                      "```python\nimport torch\nx = torch.ones(4)\n```\n")
    plan = issue.plan(report, tmp_path / "out")
    (said,) = [s for s in plan.stated if s.package == "torch"]
    assert (said.version, said.role, said.line, said.contradicted) == ("1.13.1", "", 1, 3)
    assert plan.pins == ["torch==1.13.1"]
    from harness.cli import repro_issue
    assert any("line 1 and line 3 say opposite things" in line for line in repro_issue.stated_lines(plan))


def test_the_reports_own_growth_figure_is_read_from_its_prose(index: None, tmp_path: Path) -> None:
    """torch#29809: "a steady memory increase ... at each `model(x)` call, of **190Mb per call** on average"; a
    sentence that says what memory is used per batch, with no growth, gives none."""
    plan = issue.plan(REAL / "torch_29809.md", tmp_path)
    assert plan.rate is not None and (plan.rate.words, plan.rate.per, plan.rate.line) == ("190Mb per call", "call", 42)
    assert plan.rate.amount == 190 * 2**20
    assert issue_prose.rates("Each forward uses 2 GB per batch on the GPU.") == []
    assert issue.plan(REAL / "torch_16445.md", tmp_path).rate is None
