"""Runs that share a virtualenv folder: real pip installs in real concurrent processes.

Two runs needing the same environment build it once (the second waits, then reuses it); a rebuild
for a new definition never leaves the folder half-made or missing for a run that uses it; the
key is the interpreter, not the path it was found under.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from helpers import ROOT

from harness.definitions.config import EnvDef, VariantDef
from harness.environments import venvs

VERSION = f"{sys.version_info[0]}.{sys.version_info[1]}"
ENSURE = """
import json, sys
from pathlib import Path
from harness.environments import venvs
from harness.definitions.config import EnvDef, VariantDef
from harness.environments.images import BuildOptions
env = EnvDef(name="six", family=("any",), python_version=sys.argv[2],
             variants={"cpu": VariantDef(base="", packages=(sys.argv[3],))})
notes = []
path, reused = venvs.ensure(env, "cpu", Path(sys.argv[1]), BuildOptions(), notes.append)
print(json.dumps({"path": path, "reused": reused, "notes": notes}))
"""


def _start(root: Path, pin: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", ENSURE, str(root), VERSION, pin], cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _result(proc: subprocess.Popen[str]) -> dict:
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err[-2000:]
    return json.loads(out.strip().splitlines()[-1])


def _six_version(python: str) -> str:
    return subprocess.run([python, "-c", "import six; print(six.__version__)"], capture_output=True, text=True,
                          timeout=60, check=True).stdout.strip()


def test_two_runs_build_a_shared_virtualenv_once(tmp_path: Path) -> None:
    first, second = _start(tmp_path, "six==1.16.0"), _start(tmp_path, "six==1.16.0")
    results = [_result(first), _result(second)]
    assert sorted(r["reused"] for r in results) == [False, True]  # one built it, the other waited and reused it
    assert sum(any("making a virtualenv" in n for n in r["notes"]) for r in results) == 1
    assert {r["path"] for r in results} == {str(tmp_path / "six-cpu" / "bin" / "python")}
    assert _six_version(results[0]["path"]) == "1.16.0"


def test_a_rebuild_never_leaves_a_user_without_a_working_virtualenv(tmp_path: Path) -> None:
    _result(_start(tmp_path, "six==1.16.0"))
    python = str(tmp_path / "six-cpu" / "bin" / "python")
    rebuild = _start(tmp_path, "six==1.17.0")
    seen = []
    while rebuild.poll() is None:  # a run using the environment while another rebuilds it
        seen.append(_six_version(python))
        time.sleep(0.05)
    assert _result(rebuild)["reused"] is False
    assert seen and set(seen) <= {"1.16.0", "1.17.0"}  # always a whole environment, never a missing one
    assert _six_version(python) == "1.17.0"
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.startswith(".six-cpu.") and not p.name.endswith(".lock")]
    assert len(leftovers) == 1  # the new build only: the old one went once the new one was in place


def test_the_key_is_the_interpreter_not_its_path(tmp_path: Path) -> None:
    """nox's PATH and the shell's find the same Python under different paths: no rebuild."""
    alias = tmp_path / "bin" / f"python{VERSION}"
    alias.parent.mkdir()
    alias.symlink_to(sys.executable)
    env_def = EnvDef(name="six", family=("any",), python_version=VERSION,
                     variants={"cpu": VariantDef(base="", packages=("six",))})
    assert venvs.definition_hash(env_def, "cpu", sys.executable) == venvs.definition_hash(env_def, "cpu", str(alias))
    assert os.path.realpath(alias) == os.path.realpath(sys.executable)
