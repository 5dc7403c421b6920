"""The landing view's answers, on the committed GPU references: colour by whether the driver got
the memory back, words that hold against what the record shows, the release in each column."""
from __future__ import annotations

import io

from helpers import ROOT, reference_matrix
from rich.console import Console

from harness.reporting import render
from harness.reporting.atlas_runs import run_folders

REFERENCE = ROOT / "matrix" / "reference"


def _matrix(*parts: str) -> dict:
    (path,) = sorted(REFERENCE.joinpath(*parts).glob("**/manifest.json"))[:1]
    return reference_matrix(path.parent)


def _glance(matrix: dict, scenario: str) -> dict:
    (cell,) = matrix["cells"][scenario].values()
    return cell["glance"]


def test_cached_and_held_with_nothing_back_share_one_colour_and_differ_in_words() -> None:
    tf27 = _matrix("h100-580.159.04-tf27")
    cached, held = _glance(tf27, "tf2/model_del"), _glance(tf27, "tf1/session_close")
    assert (cached["back"], cached["word"]) == ("none", "cached in the pool")
    # TF 1.x has no framework view: pool and live objects cannot be told apart, so it names neither
    assert (held["back"], held["word"]) == ("none", "held by the process")
    assert tf27["machine"] == "NVIDIA H100 80GB HBM3; NVIDIA driver 580.159.04"
    assert tf27["columns"]["host-tf-2.7.4"]["frameworks"]["tensorflow"] == "2.7.4"


def test_released_with_the_runtime_left_says_so_and_shows_nothing_left() -> None:
    small = _glance(_matrix("h100-580.159.04-attribution", "torch_small_tensor"), "repro/torch_small_tensor")
    assert small == {"back": "all", "word": "released; the runtime keeps 92.00 MiB", "label": "end", "left": 0,
                     "meter": "nvml_process", "colour": "green", "text": "released; the runtime keeps 92.00 MiB",
                     "amounts": {"runtime": 92 * 2**20}, "verdict": "released"}


def test_memory_a_child_process_holds_is_not_all_back() -> None:
    child = _glance(_matrix("h100-580.159.04-attribution", "torch_detached_child"), "repro/torch_detached_child")
    assert child["back"] == "part" and "another process holds 4.51 GiB" in child["word"]


def test_no_reference_cell_shows_a_negative_amount_or_live_objects_nothing_counted() -> None:
    for run in run_folders(REFERENCE):
        matrix = reference_matrix(run)
        for row in matrix["cells"].values():
            for cell in row.values():
                glance = cell["glance"]
                assert glance["left"] is None or glance["left"] >= 0, run
                step = next((s for s in cell["steps"] if s["label"] == glance["label"]), None)
                if step and "live objects" in glance["word"]:  # a framework's count, or what the holder search saw (25)
                    assert step["framework_left"] is not None or step.get("named"), (run, glance)


def test_the_terminal_table_fits_80_columns_with_six_environments_and_never_cuts_a_scenario() -> None:
    base = _matrix("h100-580.159.04")
    envs = [f"env-{i}" for i in range(6)]
    cells = {name: {env: next(iter(row.values())) for env in envs} for name, row in base["cells"].items()}
    matrix = dict(base, environments=envs, cells=cells, claims=[])
    for width, envs_shown in ((80, envs), (240, envs[:2])):
        shown = dict(matrix, environments=envs_shown)
        out = io.StringIO()
        Console(file=out, width=width, no_color=True).print(render.matrix_table(shown, width))
        lines = out.getvalue().splitlines()
        assert max(len(line) for line in lines) <= width
        text = out.getvalue()
        for name in matrix["scenarios"]:
            assert name in text, (width, name)  # whole, on one line
