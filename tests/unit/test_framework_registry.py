"""A framework is one registry entry: a fake one, added through the registry alone, is planned,
recognised in a script, run, recorded and rendered like the real ones."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.version import Version

from harness import frameworks
from harness.definitions import config, schema
from harness.environments import adhoc
from harness.frameworks.framework import Framework
from harness.judgement import claims
from harness.measurement.nvml import Nvml
from harness.reporting import atlas, matrix_md
from harness.running import repro
from harness.running.matrix import run_matrix
from harness.running.request import MatrixOptions

ROOT = Path(__file__).resolve().parents[2]

FAKE = Framework(name="fakefw", families=("fakefw",), distributions=("fakefw", "fakefw-cuda*"),
                 libraries=("fakefw_lib",), companions=(("<2", ("numpy<2",)),), reported_with=("fakefw_core",),
                 variables=("FAKEFW_POOL",))


def _package(root: Path) -> Path:
    """An importable fake framework: a version, a companion module, a 'pool' that holds bytes."""
    (root / "fakefw").mkdir(parents=True)
    (root / "fakefw" / "__init__.py").write_text("__version__ = '1.2.0'\nimport fakefw_core\n"
                                                 "def alloc(n):\n    return bytearray(n)\n")
    (root / "fakefw_core.py").write_text("__version__ = '1.2.0'\n")
    (root / "fakefw_lib.py").write_text("import fakefw\n")
    return root


def test_the_real_frameworks_are_registered_in_their_order() -> None:
    assert frameworks.names() == ("tensorflow", "torch", "jax", "cupy")
    assert frameworks.family_names() == ["tf1", "tf2", "torch", "jax", "cupy", "any"]
    assert frameworks.families_of({"tensorflow": "1.8.0"}) == ("tf1",)
    assert frameworks.of_distribution("cupy-cuda12x") is not None
    assert frameworks.loaded_by("transformers") == ("torch",)


def test_every_registered_framework_has_an_agent_view() -> None:
    """How a framework's pool is read lives in the agent (it runs inside the environment): each real
    framework has its view there, keyed by its import name."""
    source = (Path(frameworks.__file__).resolve().parents[1] / "agent" / "framework_view.py").read_text()
    for name in frameworks.names():
        assert f'("{name}", _' in source, name


def test_a_fake_framework_is_known_everywhere_through_the_registry(tmp_path: Path) -> None:
    with frameworks.registered(FAKE):
        assert adhoc.kind_of("fakefw-cuda12x") == "fakefw"
        assert adhoc.families_of("fakefw", Version("1.2.0")) == ("fakefw",)
        assert adhoc.companions("fakefw", Version("1.2.0"), set()) == ["numpy<2"]
        assert config.modules_of(("fakefw",)) == ("fakefw",)
        toml = '[environments.fake]\nfamily = ["fakefw"]\ninterpreter = "python3"\n'
        assert schema.problems({"environments": {"fake": {"family": ["fakefw"], "interpreter": "python3"}}}, toml) == []
        assert claims._pinned_framework("fakefw==1.2.0") == ("fakefw", "1.2.0")
        script = tmp_path / "uses_lib.py"
        script.write_text("import fakefw_lib\n")
        assert repro.script_scenario(script).families == ("fakefw",)  # a library known to load it
    assert schema.problems({"environments": {"fake": {"family": ["fakefw"], "interpreter": "python3"}}}, toml)
    assert adhoc.kind_of("fakefw") == ""  # gone with the block


def test_a_fake_framework_runs_and_is_recorded_and_rendered(tmp_path: Path, monkeypatch) -> None:
    """repro of a script importing it, through the process backend: its version and its companion's
    in the record, its variable in the cell's environment, a checkpoint after its import (the
    framework floor), its release as the atlas's column and in matrix.md's header."""
    site = _package(tmp_path / "site")
    monkeypatch.setenv("FAKEFW_POOL", "grow")
    monkeypatch.setenv("PYTHONPATH", str(site))
    script = tmp_path / "bug.py"
    script.write_text("import fakefw\nx = fakefw.alloc(64 << 20)\ndel x\n")
    with frameworks.registered(FAKE):
        item = repro.script_scenario(script)
        env = config.adhoc_interpreter(sys.executable, list(item.families))
        options = MatrixOptions(items=[item], extra_envs=[env], backend="process", results_root=tmp_path / "results",
                                venv_root=tmp_path / "venvs")
        nvml = Nvml.open()
        try:
            run = run_matrix(options, nvml, lambda kind, data: None)
        finally:
            nvml.close()
        record = run.records[0]
        assert record["status"] == "ok", record.get("error")
        assert record["facts"]["frameworks"]["fakefw"] == "1.2.0"
        assert record["facts"]["frameworks"]["fakefw_core"] == "1.2.0"
        assert record["env_seen"]["FAKEFW_POOL"] == "grow"
        assert any(cp["label"].endswith("import fakefw") for cp in record["checkpoints"])
        assert atlas._framework(record, {}) == ("fakefw", "1.2.0")
        column = run.matrix["columns"][env.name]
        assert "fakefw 1.2.0" in matrix_md.column_header(env.name, column)


def test_a_frameworks_gpu_builds_come_from_its_registry_entry_alone() -> None:
    """How a release is built for a GPU (its CUDA base and Python, the extra of its CUDA build, the wheels
    from outside the index, or why it cannot be) is the entry's data: adhoc.gpu_plan only reads it."""
    from dataclasses import replace

    from packaging.requirements import Requirement

    from harness.frameworks.framework import GpuBuild

    builds = (GpuBuild("", "nvidia/cuda:11.8.0-runtime-ubuntu{ubuntu}", distribution="fakefw-cuda11*", ubuntus=("22.04",)),
              GpuBuild(">=3", extra="cuda12", find_links="https://example.invalid/fakefw.html"),
              GpuBuild(">=2,<3", "nvidia/cuda:11.8.0-cudnn8-runtime-ubuntu22.04"),
              GpuBuild(">=1.5,<2", "fakefw/fakefw:{version}-gpu", python="2.7"),
              GpuBuild("<1.5", unavailable="no CUDA build of it reaches this tool"))  # the first that holds a release decides
    with frameworks.registered(replace(FAKE, gpu_builds=builds)):
        def plan(pin: str, pythons: tuple[str, ...] = ("3.10", "3.12")) -> adhoc.Plan:
            req = Requirement(pin)
            return adhoc.gpu_plan(req, adhoc.pinned(req), pythons, [pin])

        newest = plan("fakefw==3.1")
        assert newest.packages == ("fakefw[cuda12]==3.1",) and newest.pip_options[0] == "--find-links"
        assert newest.base == "nvidia/cuda:12.8.1-runtime-ubuntu24.04"  # no base of its own: CUDA 12's, its Python's Ubuntu
        assert (plan("fakefw==2.4").base, plan("fakefw==2.4").python) == ("nvidia/cuda:11.8.0-cudnn8-runtime-ubuntu22.04",
                                                                        "3.10")
        try:
            plan("fakefw==2.4", ("3.12",))
            raise AssertionError("a base of one Ubuntu needs its Python")
        except adhoc.NoCudaBase as exc:
            assert "no wheel for Python 3.10, the Python of its CUDA base" in str(exc)
        assert (plan("fakefw==1.6").base, plan("fakefw==1.6").python) == ("fakefw/fakefw:1.6-gpu", "2.7")
        try:
            plan("fakefw==1.2")
            raise AssertionError("a release without a CUDA build is unavailable")
        except adhoc.Unavailable as exc:
            assert str(exc) == "fakefw 1.2: no CUDA build of it reaches this tool"
        assert plan("fakefw-cuda11x==1.2", ("3.10",)).base == "nvidia/cuda:11.8.0-runtime-ubuntu22.04"
        assert plan("fakefw-cuda11x==1.2", ("3.12",)).base == "nvidia/cuda:12.8.1-runtime-ubuntu24.04"  # no 24.04 of it


def _plugin(root: Path, name: str, attribute: str, module: str) -> None:
    """An installed package ``name`` whose metadata names ``name:attribute`` in the frameworks' entry-point group,
    as pip leaves it."""
    info = root / f"{name}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[{frameworks.ENTRY_POINTS}]\nfakefw = {name}:{attribute}\n")
    (root / f"{name}.py").write_text(module)


def test_an_installed_package_adds_a_framework_through_the_entry_point_group(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    _plugin(tmp_path, "fakefw_matrix", "FRAMEWORK", "from harness.frameworks.framework import Framework\n"
            "FRAMEWORK = Framework(name='fakefw', families=('fakefw',), distributions=('fakefw',))\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    (found,), left_out = frameworks.installed()
    assert found.name == "fakefw" and found.distributions == ("fakefw",) and not left_out
    with frameworks.registered(found):
        assert adhoc.kind_of("fakefw") == "fakefw" and "fakefw" in frameworks.family_names()


def test_an_entry_that_is_no_framework_or_fails_to_load_is_left_out_in_one_line(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    _plugin(tmp_path, "fakefw_broken", "NOT_ONE", "NOT_ONE = {'name': 'fakefw'}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    found, (said,) = frameworks.installed()
    assert not found and said == ("gpu_cleanup_matrix.frameworks entry fakefw = fakefw_broken:NOT_ONE left out: a dict, "
                                  "not a harness.frameworks.framework.Framework (or a module holding one as FRAMEWORK)")
    failing = tmp_path / "failing"
    _plugin(failing, "fakefw_failing", "FRAMEWORK", "raise ImportError('needs fakefw 2')\n")
    monkeypatch.syspath_prepend(str(failing))
    assert "fakefw_failing:FRAMEWORK left out: it failed to load (ImportError: needs fakefw 2); fix or uninstall" in (
        " ".join(frameworks.installed()[1]))
    result = subprocess.run([sys.executable, "-m", "harness", "scenarios"], capture_output=True, text=True, cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": os.pathsep.join([str(failing), str(ROOT)])})
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.count("left out: it failed to load (ImportError: needs fakefw 2)") == 1
