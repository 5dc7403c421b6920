"""A script behaves under `repro` exactly as it does bare (tests/fidelity/compare.py), on real
processes: what it finds at its first line, a fork after its imports, spawn children that need its
__main__, its exit code, an exit long after its last line, and a forked worker that fails."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
from helpers import ROOT

sys.path.insert(0, str(ROOT / "tests" / "fidelity"))
import compare  # noqa: E402

SCRIPTS = ROOT / "tests" / "fidelity" / "scripts"


def _compare(name: str, tmp_path: Path) -> compare.Outcome:
    return compare.compare(SCRIPTS / name, sys.executable, None, tmp_path, 120.0, [])


@pytest.mark.parametrize("name", ["first_line.py", "fork_after_import.py", "spawn_main_function.py", "env_before_import.py"])
def test_the_script_sees_what_it_sees_bare(name: str, tmp_path: Path) -> None:
    outcome = _compare(name, tmp_path)
    assert outcome.bare_lines and outcome.bare_lines == outcome.repro_lines
    assert outcome.bare_exit == outcome.repro_exit == 0 and outcome.status == "ok", outcome.repro_said


def test_nothing_of_the_agent_is_loaded_at_the_first_line(tmp_path: Path) -> None:
    outcome = _compare("first_line.py", tmp_path)
    modules = next(line for line in outcome.repro_lines if line.startswith("FIDELITY modules"))
    assert "json" not in modules and "'framework_view'" not in modules and "'instrument'" not in modules
    assert "FIDELITY threads 1 ['MainThread']" in outcome.repro_lines


def test_the_script_ends_its_process_with_its_own_exit_code(tmp_path: Path) -> None:
    outcome = _compare("exit_code.py", tmp_path)
    assert outcome.bare_exit == outcome.repro_exit == 3 and outcome.bare_lines == outcome.repro_lines
    assert outcome.status == "error" and "Status: **error**: `SystemExit: 3`" in outcome.repro_said


def test_an_exit_15_s_after_the_last_line_is_the_scripts_own(tmp_path: Path) -> None:
    outcome = _compare("slow_exit.py", tmp_path)
    assert outcome.same and outcome.status == "ok"
    assert outcome.exit_s is not None and 14.0 <= outcome.exit_s <= 30.0
    assert any(line.startswith(f"The script's process exited {outcome.exit_s:.1f} s after its last line")
               for line in outcome.repro_said), outcome.repro_said


def test_a_forked_worker_that_fails_is_named_while_the_script_is_ok(tmp_path: Path) -> None:
    outcome = _compare("failing_fork_child.py", tmp_path)
    assert outcome.same and outcome.bare_exit == 0 and outcome.status == "ok"
    assert outcome.repro_lines == ["FIDELITY child exit code 1"]
    line = next(s for s in outcome.repro_said if s.startswith("A process the script forked failed"))
    assert "exited with code 1" in line and "`RuntimeError: the worker failed on purpose`" in line


def test_spawned_workers_take_checkpoints_and_see_what_they_see_bare(tmp_path: Path) -> None:
    """A spawn Pool's and a spawn Process's workers run the script's functions with their checkpoints,
    labelled by worker; what they print (argv, __main__, no module of the agent's) is the bare run's."""
    outcome = _compare("spawn_workers_seen.py", tmp_path / "compared")
    assert outcome.bare_lines == outcome.repro_lines and outcome.status == "ok", (outcome.bare_lines, outcome.repro_lines)
    assert "spawn_workers_seen.py'], __main__ __mp_main__ spawn_workers_seen.py, agent modules [], n 0" \
        in outcome.bare_lines[0]  # the parent's argv, as spawn's prepare() gives it
    record, _, _ = compare.run_repro(SCRIPTS / "spawn_workers_seen.py", sys.executable, None, tmp_path / "again", 120.0, [])
    labels = [cp["label"] for cp in record["checkpoints"]]
    workers = sorted({label.split(":")[0] for label in labels if label.startswith("worker ")})
    # the Process and the Pool's workers that ran: on a loaded machine one Pool worker may take both items, and the
    # other, still starting, is terminated as the `with Pool` block ends, before its first checkpoint
    assert len(workers) in (2, 3), labels
    assert all(f"{w}: start" in labels for w in workers) and any("spawn_workers_seen.py:10: del block#1" in x for x in labels)
    assert all(cp.get("spawned") for cp in record["checkpoints"] if cp["label"].startswith("worker "))


def test_forked_workers_take_their_own_checkpoints(tmp_path: Path) -> None:
    """A fork Pool's workers inherit the instrumented code: each reports its checkpoints on a channel of
    its own (labelled by worker), never on the parent's; the output is the bare run's."""
    outcome = _compare("fork_pool_workers.py", tmp_path / "compared")
    assert outcome.bare_lines == outcome.repro_lines == ["FIDELITY [0, 1, 2, 3]"] and outcome.status == "ok"
    record, _, _ = compare.run_repro(SCRIPTS / "fork_pool_workers.py", sys.executable, None, tmp_path / "again", 120.0, [])
    labels = [cp["label"] for cp in record["checkpoints"]]
    workers = {label.split(":")[0] for label in labels if label.startswith("worker ")}
    assert len(workers) == 2, labels
    assert all(f"{w}: fork_pool_workers.py:7: del block#1" in labels for w in workers), labels


@pytest.mark.parametrize("version", ["2.7", "3.7", "3.8", "3.9"])
def test_the_process_ends_as_bare_on_old_pythons(version: str, tmp_path: Path) -> None:
    """Python 3.7-3.9 crashed (SIGSEGV) at the end of the agent's process while a bare run exited 0: an open
    file the agent's fork hook kept was warned of after the interpreter's modules were gone."""
    from harness.environments import venvs
    python = venvs.find_python(version)
    if python is None:
        pytest.skip(f"no Python {version} here")
    outcome = compare.compare(SCRIPTS / "exit_code.py", python, None, tmp_path, 120.0, [])
    assert outcome.bare_exit == outcome.repro_exit == 3 and outcome.bare_lines == outcome.repro_lines, outcome
