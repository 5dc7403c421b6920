"""A run refused before it starts leaves no results folder behind: the writability probe removes what it made."""
from __future__ import annotations

from pathlib import Path

from helpers import broken_pin, harness_cli

from harness.store import results


def test_the_probe_leaves_only_what_was_there(tmp_path: Path) -> None:
    results.check_writable(tmp_path / "a" / "b")
    assert not (tmp_path / "a").exists()
    (tmp_path / "kept").mkdir()
    results.check_writable(tmp_path / "kept")
    assert (tmp_path / "kept").is_dir() and not list((tmp_path / "kept").iterdir())


def test_a_release_the_index_lacks_is_one_line_exit_2_and_no_folder(tmp_path: Path) -> None:
    script = tmp_path / "leak.py"
    script.write_text("import torch\nx = 1\n")
    pin = broken_pin(tmp_path)  # a folder index offering torch 0.0.1 only
    pin[1] = "torch==9.9.9"
    done = harness_cli("repro", str(script), *pin, "--results", str(tmp_path / "results"), cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    (said,) = [line for line in done.stderr.splitlines() if line.strip()]  # one line
    assert said.startswith("gpu-cleanup-matrix: error: --with torch==9.9.9: torch has no release 9.9.9 on "), said
    assert "0.0.1" in said, said  # the releases near it, as that index has them
    assert not (tmp_path / "results").exists()
