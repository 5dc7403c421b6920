"""The GPU history's file: every sweep names a framework build the registry knows and releases the
sweep can find; a bad entry is one line naming it; --only picks sweeps by package."""
from __future__ import annotations

from pathlib import Path

import pytest

from harness import frameworks
from harness.common.errors import UsageError
from harness.running import history


def test_the_shipped_history_covers_every_framework_from_its_oldest_release_asked_for() -> None:
    parts = history.load()
    kinds = {frameworks.of_distribution(p.package.split("[")[0]).name for p in parts}  # type: ignore[union-attr]
    assert kinds == {"torch", "tensorflow", "jax", "cupy"}
    spans = {p.label: (p.low, p.high) for p in parts}
    assert spans["torch-1.0.1-2.15.0"] == ("1.0.1", "2.15.0") and spans["tensorflow-gpu-1.15.5-2.0.4"] == ("1.15.5", "2.0.4")
    jax04 = next(p for p in parts if p.releases and p.package == "jax")
    assert jax04.releases == ("0.4.1", "0.4.14", "0.4.23", "0.4.35")  # the issue's four, not 0.4's newest alone
    assert len({p.label for p in parts}) == len(parts) and all(p.why for p in parts)


def test_a_sweep_without_a_span_or_with_an_unknown_key_is_refused_in_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "history.toml"
    bad.write_text('[[sweep]]\npackage = "torch"\nfrom = "2.0.0"\n')
    with pytest.raises(UsageError, match="needs package and from/to or releases"):
        history.load(bad)
    bad.write_text('[[sweep]]\npackage = "torch"\nreleases = ["2.5.1", "2.4.1"]\nscript = "s.py"\nrepeat = 2\n')
    with pytest.raises(UsageError, match="unknown: repeat"):
        history.load(bad)


def test_listed_releases_are_sorted_a_script_is_found_beside_the_file_and_only_picks_by_package(tmp_path: Path) -> None:
    path = tmp_path / "history.toml"
    path.write_text('[[sweep]]\npackage = "torch"\nreleases = ["2.5.1", "2.4.1"]\nscript = "s.py"\n'
                    '[[sweep]]\npackage = "jax[cuda12]"\nfrom = "0.4.30"\nto = "0.5.3"\n')
    torch, jax = history.load(path)
    assert (torch.low, torch.high, torch.releases, torch.script) == ("2.4.1", "2.5.1", ("2.4.1", "2.5.1"), tmp_path / "s.py")
    assert jax.label == "jax_cuda12_-0.4.30-0.5.3"
    assert history.chosen([torch, jax], ["jax"]) == [jax]
    with pytest.raises(UsageError, match="no sweep of it; its packages: torch, jax"):
        history.chosen([torch, jax], ["cupy"])


def test_history_md_says_each_sweeps_releases_what_did_not_run_and_its_time() -> None:
    said = history.markdown({"variant": "gpu", "wall_s": 4000.0, "sweeps": [
        {"sweep": "torch-1.0.1-2.15.0", "releases": ["1.0.1", "2.15.0"], "skipped": ["torch==1.0.1"], "changes": 2,
         "wall_s": 3700.0, "run": "torch-1.0.1-2.15.0/20261127T1"},
        {"sweep": "jax-0.4.1-0.4.35", "error": "no such release", "wall_s": 0.4}]})
    assert "| torch-1.0.1-2.15.0 | 1 of 2 | torch==1.0.1 | 2 | 1 h 01 min |" in said
    assert "| jax-0.4.1-0.4.35 | - | no such release | - | 0.4 s | - |" in said and "All 2 sweeps: 1 h 06 min" in said
