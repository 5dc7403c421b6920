"""What a first `matrix` run on a machine without a GPU ends on, from a recorded full CPU run (81
cells, tests/data/cpu-runs/): a closing screen that fits one, one sentence per environment whose
counts are the cells', and one line per cause of fallback, not one per environment."""
from __future__ import annotations

import gzip
import io
import json
import re
from pathlib import Path
from typing import Any

from rich.console import Console

from harness.cli.fallbacks import FallbackLines
from harness.judgement import per_framework, verdicts
from harness.reporting import aggregate, closing

RUNS = Path(__file__).resolve().parents[1] / "data" / "cpu-runs"


def _matrix() -> dict[str, Any]:
    records = list(json.loads(gzip.decompress((RUNS / "run-a.json.gz").read_bytes())).values())
    for record in records:
        record["verdicts"] = verdicts.judge(record)
    return json.loads(json.dumps(aggregate.matrix_from(records, [], "run-a", [], ""), default=str))


def test_the_closing_screen_fits_one_and_names_every_scenario_once() -> None:
    matrix = _matrix()
    out = io.StringIO()
    console = Console(file=out, width=80, no_color=True)
    for block in closing.blocks(matrix):
        console.print(block)
    text = out.getvalue()
    assert text.count("\n") <= 50, text  # the whole table was 277 lines at 80 columns
    for env, release in (("tf1.8", "1.8.0"), ("tf2.7", "2.7.4"), ("tf-current", "2.21.0"), ("torch", "2.13.0")):
        assert f"{env} {release}" in text  # each header names its release
    shown = " ".join(text.split())
    for name in matrix["scenarios"]:
        short = name.split("/", 1)[1]
        assert len(re.findall(rf"(?<![\w@]){re.escape(short)}(?![\w@])", shown)) >= 1, short


def test_one_sentence_per_environment_counts_what_its_cells_say() -> None:
    matrix = _matrix()
    said = per_framework.sentences(matrix, host_only=True)
    assert len(said) == len(matrix["environments"]) == 6
    for env, sentence in zip(matrix["environments"], said, strict=True):
        cells = [row[env]["glance"] for row in matrix["cells"].values() if env in row]
        measured = [g for g in cells if g["back"] in ("all", "part", "none")]
        assert f"({env}):" in sentence and sentence.endswith(".")
        if measured:
            assert f"{sum(g['back'] == 'all' for g in measured)} of {len(measured)} cleanup" in sentence, sentence
        need_gpu = sum(g["word"] == "not shown without a GPU" for g in cells)
        assert (f"{need_gpu} need a GPU" in sentence) == bool(need_gpu), sentence


def test_six_environments_without_their_bases_are_one_line_said_before_anything_is_built() -> None:
    """The cause is said when the first environment meets it (a fresh machine without a registry read it only after
    every virtualenv was built); the plan then names the environments it sent to virtualenvs, the cause not again."""
    lines = FallbackLines()
    cause = 'Get "https://registry-1.docker.io/v2/": dial tcp: lookup registry-1.docker.io: no such host'
    now = []
    for env in ("tf2.7", "tf1.8", "tf-current", "torch", "jax", "cupy"):
        base = f"python:{env}"
        now += lines.add({"env": env, "base": base, "cause": cause,
                          "reason": f"its base image {base} is not on this host and cannot be pulled ({cause}): run in "
                                    "a virtualenv instead"})
    now += lines.add({"env": "mine", "base": "myorg/base:1", "cause": "pull access denied for myorg/base",
                      "reason": "its base image myorg/base:1 is not on this host and cannot be pulled (pull access "
                                "denied for myorg/base): run in a virtualenv instead"})
    assert len(now) == 2 and now[0] == (f"virtualenv tf2.7: its base image python:tf2.7 is not on this host and cannot "
                                        f"be pulled ({cause}): run in a virtualenv instead")
    assert now[1].startswith("virtualenv mine: its base image myorg/base:1 ")
    said = lines.lines()
    assert said == ["virtualenv 6 environments (tf2.7, tf1.8, tf-current, torch, jax, cupy): their base images cannot "
                    "be pulled, for the cause said above at tf2.7"]  # "mine" alone was said whole when it came
    assert lines.lines() == []  # said once


def test_a_column_is_known_by_its_framework_never_by_a_companion_alone() -> None:
    """jax[cuda12]==0.4.35 on an H200: `import jax` failed after jaxlib 0.4.34 was imported; the sentence names
    the environment, not "jaxlib 0.4.34"."""
    assert per_framework.release("jax[cuda12]==0.4.35", {"frameworks": {"jaxlib": "0.4.34", "numpy": "2.5.5"}}) \
        == "jax[cuda12]==0.4.35"
    assert per_framework.release("jax", {"frameworks": {"jaxlib": "0.4.34", "jax": "0.4.34"}}) == "jax 0.4.34 (jax)"
    assert per_framework.release("tf", {"frameworks": {"keras": "3.1.0", "tensorflow": "2.16.2"}}) == \
        "tensorflow 2.16.2 (tf)"
