"""In a container too, a script behaves under `repro` as under a bare `docker run` of the same image:
torch (the cpu image) imported only by the script, its thread setting honoured, a fork after the
import, its exit code (tests/fidelity/compare.py)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
from helpers import ROOT

sys.path.insert(0, str(ROOT / "tests" / "fidelity"))
import compare  # noqa: E402

SCRIPTS = ROOT / "tests" / "fidelity" / "scripts"


@pytest.mark.parametrize("name", ["first_line.py", "env_before_import.py", "fork_after_import.py", "exit_code.py"])
def test_a_script_in_its_container_behaves_as_bare(cpu_image, name: str, tmp_path: Path) -> None:
    image = cpu_image("torch")
    outcome = compare.compare(SCRIPTS / name, None, image, tmp_path, 300.0, [])
    assert outcome.bare_lines and outcome.bare_lines == outcome.repro_lines, (outcome.bare_lines, outcome.repro_lines)
    assert outcome.bare_exit == outcome.repro_exit, outcome.repro_said
    if name == "env_before_import.py":  # torch ran in the image: the script's OMP_NUM_THREADS=1 took effect
        assert outcome.repro_lines[-1] == "FIDELITY threads 1"  # else torch takes every core (2 on CI)
