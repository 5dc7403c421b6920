"""A first run where Docker answers but an image cannot be built (its base is not on this host and
no registry gives it): with the backend left to the tool, that environment runs in a virtualenv of
the same pins, said in one line; asked for Docker, the failure is the answer, in one line."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from helpers import harness_cli

from harness.definitions import config

PYTHON = f"{sys.version_info[0]}.{sys.version_info[1]}"
ENVIRONMENTS = f"""
[environments.torch-nobase]
python_version = "{PYTHON}"
family = ["torch"]
dockerfile = "images/torch"
python = "python"
[environments.torch-nobase.variants.cpu]
base = "gpu-cleanup-matrix-test/no-such-base:absent"
packages = ["torch==2.13.0"]
index_url = "https://download.pytorch.org/whl/cpu"
"""


@pytest.fixture
def environments(tmp_path: Path, docker_client: object) -> Path:
    path = tmp_path / "environments.toml"
    path.write_text(ENVIRONMENTS, encoding="utf-8")
    return path


SHOWN = config.mirrored("gpu-cleanup-matrix-test/no-such-base:absent")  # where a build looks for it (HARNESS_BASE_MIRROR)


def _matrix(environments: Path, results: Path, *extra: str) -> tuple[int, str]:
    done = harness_cli("matrix", "--environments", str(environments), "--env", "torch-nobase", "--variant", "cpu",
                       "--scenario", "torch/del_gc_empty_cache", "--results", str(results),
                       "--venv-dir", str(results.parent / "venvs"), *extra, timeout=1200)
    return done.returncode, done.stdout + done.stderr


def test_an_image_without_its_base_runs_in_a_virtualenv_and_says_so(environments: Path, tmp_path: Path) -> None:
    code, said = _matrix(environments, tmp_path / "results")
    assert code == 0, said[-3000:]
    lines = [line for line in said.splitlines() if "no-such-base" in line]
    assert lines and lines[0].startswith(f"virtualenv torch-nobase: its base image {SHOWN} "
                                         "is not on this host and cannot be pulled ("), said[-3000:]
    assert lines[0].endswith("run in a virtualenv instead")
    assert not [line for line in said.splitlines() if line.startswith("building") and "torch-nobase" in line]  # said once
    (run,) = [p for p in (tmp_path / "results").iterdir() if p.is_dir()]
    record = json.loads(next(run.glob("torch-nobase/*.json")).read_text())
    assert record["status"] == "ok" and record["env"]["backend"] == "venv"
    manifest = json.loads((run / "manifest.json").read_text())
    assert "no-such-base" in manifest["fallback"]["torch-nobase"]
    assert "In virtualenvs instead of their images: torch-nobase" in (run / "matrix.md").read_text()


def test_asked_for_docker_the_missing_base_is_the_answer_in_one_line(environments: Path, tmp_path: Path) -> None:
    code, said = _matrix(environments, tmp_path / "results", "--backend", "docker")
    assert code == 4, said[-3000:]
    assert f"its base image {SHOWN} is not on this host and cannot be pulled" in said
    assert "virtualenv" not in said.lower().replace("--venv-dir", "")


def test_doctor_names_a_base_that_is_neither_here_nor_pullable(docker_client: object) -> None:
    """doctor says, before any run, which bases are missing and whether a registry can give them."""
    from harness.definitions.config import EnvDef, VariantDef
    from harness.environments import doctor

    env = EnvDef(name="nobase", family=("torch",), python_version=PYTHON, dockerfile="images/torch",
                 variants={"cpu": VariantDef(base="gpu-cleanup-matrix-test/no-such-base:absent", packages=("torch==2.13.0",))})
    (check,) = doctor.base_checks(docker_client, [env], "cpu")
    if doctor.reachable(doctor.REGISTRY) is None:
        assert check.ok and "pulled when first built" in check.detail
    else:
        assert check.ok is False and "gpu-cleanup-matrix-test/no-such-base:absent not on this host" in check.detail
        assert "virtualenvs of the same pins" in check.fix


def test_doctor_says_an_image_without_a_base_runs_in_a_virtualenv_not_to_build_it(environments: Path) -> None:
    """The image check agrees with the base check: where the base cannot be had, `nox -s images` would
    fail, so doctor does not suggest it; it says where the environment will run instead."""
    from harness.environments import doctor

    done = harness_cli("doctor", "--environments", str(environments), timeout=120)
    line = next(line for line in done.stdout.splitlines() + done.stderr.splitlines() if "torch-nobase:cpu" in line)
    if doctor.reachable(doctor.REGISTRY) is None:
        assert "missing or out of date" in line  # a registry could give the base: building is the fix
    else:
        assert "its base cannot be had here (above): the matrix runs torch-nobase in a virtualenv" in line, line
        assert "nox -s images" not in line


def test_a_release_no_cuda_base_has_a_python_for_is_made_as_a_virtualenv_only(docker_client: object,
                                                                                tmp_path: Path) -> None:
    """torch 1.0.1 has wheels for Python 2.7 and 3.7, no CUDA base image has either: with Docker
    answering, the tool leaves the image out and makes a virtualenv (here: no Python of its own on
    this host, so skipped with both reasons); asked for Docker, skipped with the way that works."""
    from harness.definitions.config import EnvDef, VariantDef
    from harness.environments.images import BuildOptions
    from harness.environments.prepare import prepare
    from harness.measurement.nvml import Nvml

    why = "torch 1.0.1 has no wheel for the Python of any CUDA base (3.12, 3.10, 3.8, 3.6)"
    env = EnvDef(name="torch==1.0.1", family=("torch",), dockerfile="images/adhoc", python_version="3.99",
                 other_pythons=("3.98",), default=False, pin="torch==1.0.1",
                 variants={"gpu": VariantDef(base="", packages=("torch==1.0.1",), no_image=why)})
    events: list[tuple[str, dict]] = []
    def run(requested: str) -> dict[str, str]:
        prepared = prepare([env], "gpu", requested, None, BuildOptions(), tmp_path / "venvs", Nvml(False, "none here"),
                           lambda kind, data: events.append((kind, dict(data))))
        assert prepared.kind == "docker" and not prepared.backends and not prepared.failed
        return prepared.skipped
    assert run("auto") == {"torch==1.0.1": f"no image can be made ({why}), and python3.99 not found (nor 3.98, which "
                                           "its pins also have wheels for): install it, or run with Docker"}
    assert ("fallback", {"env": "torch==1.0.1", "reason": f"no image can be made ({why}): run in a virtualenv instead"}) \
        in events
    assert run("docker") == {"torch==1.0.1": f"no image can be made ({why}); --backend venv runs it"}
