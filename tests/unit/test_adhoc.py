"""Environments from pins: family, Python, companion pins and base, read from a package index.

The index here is a real one on disk (PEP 503 pages under a folder, read through file://), with
the file names the real releases publish.
"""
from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

from harness.common import pinned
from harness.common.errors import UsageError
from harness.definitions import config
from harness.environments import adhoc, pins

PROJECTS = {
    "tensorflow": ["tensorflow-2.9.2-cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
                   "tensorflow-2.9.2-cp38-cp38-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
                   "tensorflow-2.13.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
                   "tensorflow-2.13.0-cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
                   "tensorflow-2.16.1-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
                   "tensorflow-2.16.1-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
                   "tensorflow-1.8.0-cp27-cp27mu-manylinux1_x86_64.whl",
                   "tensorflow-2.4.4-cp38-cp38-manylinux2010_x86_64.whl",
                   "tensorflow-2.3.4-cp38-cp38-manylinux2010_x86_64.whl",
                   "tensorflow-0.12.0.tar.gz"],
    "jax": ["jax-0.10.2-py3-none-any.whl", "jax-0.11.2-py3-none-any.whl", "jax-0.4.1.tar.gz", "jax-0.4.2.tar.gz"],
    "jaxlib": ["jaxlib-0.10.2-cp311-cp311-manylinux_2_27_x86_64.whl", "jaxlib-0.10.2-cp312-cp312-manylinux_2_27_x86_64.whl",
               "jaxlib-0.11.2-cp312-cp312-manylinux_2_27_x86_64.whl", "jaxlib-0.11.2-cp313-cp313-manylinux_2_27_x86_64.whl",
               "jaxlib-0.4.2-cp310-cp310-manylinux2014_x86_64.whl"],
    "torch": ["torch-2.5.1-cp311-cp311-manylinux1_x86_64.whl", "torch-2.5.1-cp312-cp312-manylinux1_x86_64.whl",
              "torch-1.0.1-cp27-cp27mu-manylinux1_x86_64.whl", "torch-1.0.1-cp37-cp37m-manylinux1_x86_64.whl"],
    "six": ["six-1.16.0-py2.py3-none-any.whl"],
    "cupy-cuda112": ["cupy_cuda112-8.6.0-cp38-cp38-manylinux1_x86_64.whl"],
    "cupy-cuda111": ["cupy_cuda111-8.6.0-cp38-cp38-manylinux1_x86_64.whl"],
    "cupy-cuda11x": ["cupy_cuda11x-13.6.0-cp312-cp312-manylinux2014_x86_64.whl"],
}


@pytest.fixture()
def index(tmp_path: Path) -> str:
    for project, files in PROJECTS.items():
        folder = tmp_path / "simple" / project
        folder.mkdir(parents=True)
        links = "".join(f'<a href="{name}">{name}</a>' for name in files)
        (folder / "index.html").write_text(f"<html><body>{links}</body></html>")
    return (tmp_path / "simple").as_uri()


def test_jax_gets_its_jaxlib_and_a_python_both_have_wheels_for(index: str) -> None:
    env = adhoc.environment("jax==0.10.2", "cpu", index_url=index)
    assert env.family == ("jax",) and env.python_version == "3.11" and env.pin == "jax==0.10.2"
    assert env.variants["cpu"].packages == ("jax==0.10.2", "jaxlib==0.10.2")
    assert env.variants["cpu"].base == "python:3.11-slim-bookworm"
    newer = adhoc.environment("jax==0.11.2", "cpu", index_url=index)
    assert newer.python_version == "3.12"  # no 3.11 wheel: the nearest Python that has one
    gpu = adhoc.environment("jax==0.10.2", "gpu", index_url=index).variants["gpu"].packages
    # the CUDA extra pins its own jaxlib (jax[cuda12]==0.4.35 pins 0.4.34): a second pin made it uninstallable
    assert gpu[0] == "jax[cuda12]==0.10.2" and not any(p.startswith("jaxlib") for p in gpu)
    assert adhoc.environment("jax[cuda12]==0.10.2", "cpu", index_url=index).variants["cpu"].packages == (
        "jax[cuda12]==0.10.2",)


def test_a_jax_release_published_as_a_source_archive_takes_its_jaxlibs_pythons(index: str) -> None:
    """jax 0.4.1 is pure Python and PyPI has only its source archive; its jaxlib decides the Python. Where the
    index has no such jaxlib (PyPI's oldest is 0.4.13 today), one line says so."""
    env = adhoc.environment("jax==0.4.2", "cpu", index_url=index)
    assert env.python_version == "3.10" and env.variants["cpu"].packages == ("jax==0.4.2", "numpy<2", "jaxlib==0.4.2")
    gone = adhoc.environment("jax==0.4.1", "cpu", index_url=index)
    assert gone.unavailable == (f"jax 0.4.1 is a source archive and needs jaxlib 0.4.1, which {index} does not have "
                                "(its oldest there: 0.4.2)")


def test_tensorflow_gets_the_companions_its_metadata_lacks_and_its_cuda_base(index: str) -> None:
    old = adhoc.environment("tensorflow==2.9.2", "cpu", index_url=index)
    assert old.family == ("tf2", "tf1") and "numpy<1.24" in old.variants["cpu"].packages
    assert old.python_version == "3.10" and old.variants["cpu"].base == "python:3.10-slim-bookworm"
    gpu = adhoc.environment("tensorflow==2.9.2", "gpu", index_url=index).variants["gpu"]
    assert gpu.base == "nvidia/cuda:11.2.2-cudnn8-runtime-ubuntu20.04"  # its tested CUDA 11.2, Python 3.8
    current = adhoc.environment("tensorflow==2.16.1", "gpu", index_url=index)
    assert current.variants["gpu"].packages[0] == "tensorflow[and-cuda]==2.16.1" and current.python_version == "3.12"
    tf1 = adhoc.environment("tensorflow==1.8.0", "gpu", index_url=index)
    assert tf1.family == ("tf1",) and tf1.variants["gpu"].base == "tensorflow/tensorflow:1.8.0-gpu"
    pinned = adhoc.environment("tensorflow==2.13.0,numpy==1.24.3", "cpu", index_url=index)
    assert pinned.name == "tensorflow==2.13.0,numpy==1.24.3" and "numpy<2" not in pinned.variants["cpu"].packages


def test_a_release_that_cannot_run_here_is_an_environment_saying_why(index: str) -> None:
    sdist = adhoc.environment("tensorflow==0.12.0", "cpu", index_url=index)
    assert "no wheel for Linux x86_64 (only a source archive)" in sdist.unavailable
    with pytest.raises(UsageError, match=r"^--with tensorflow==2.99.0: tensorflow has no release 2.99.0 on .*; its 2.x: "
                                         r"2.9.2, 2.13.0, 2.16.1 \(--with tensorflow==VERSION\)$"):
        adhoc.environment("tensorflow==2.99.0", "cpu", index_url=index)  # a typo: nothing is made, the run stops
    no_cuda_python = adhoc.environment("tensorflow==2.13.0", "gpu", index_url=index)
    assert no_cuda_python.unavailable == ""  # 3.10 wheels: CUDA 11.8 on Ubuntu 22.04


def test_torch_cpu_builds_come_from_pytorchs_cpu_index(index: str) -> None:
    env = adhoc.environment("torch==2.5.1", "cpu", index_url=index)
    assert env.variants["cpu"].index_url == "https://download.pytorch.org/whl/cpu"
    assert env.alias_tag("cpu") == f"{config.image_prefix()}/torch-2.5.1:cpu"
    assert env.image_tag("cpu") == f"{config.image_prefix()}/torch-2.5.1:cpu-{env.definition_hash('cpu')}"


def test_two_definitions_of_one_environment_get_their_own_image_tags(index: str) -> None:
    """Users of one engine whose pins for an environment differ never build over each other's image."""
    mine = adhoc.environment("torch==2.5.1", "cpu", index_url=index)
    theirs = replace(mine, variants={"cpu": replace(mine.variants["cpu"], packages=("torch==2.5.1", "numpy==1.26.4"))})
    assert mine.alias_tag("cpu") == theirs.alias_tag("cpu")
    assert mine.image_tag("cpu") != theirs.image_tag("cpu")
    assert replace(mine).image_tag("cpu") == mine.image_tag("cpu")  # the same definition: the same image


def test_a_package_that_is_no_framework_takes_the_scripts_family(index: str) -> None:
    assert adhoc.environment("six==1.16.0", "cpu", ("any",), index_url=index).family == ("any",)
    with pytest.raises(UsageError, match="pin a framework too"):
        adhoc.environment("six==1.16.0", "cpu", index_url=index)


@pytest.mark.parametrize("text", ["tensorflow>=2.9", "tensorflow==2.*", "tensorflow", "tensorflow~=2.9"])
def test_only_exact_pins_are_accepted(text: str) -> None:
    with pytest.raises(UsageError, match="pin tensorflow to one release"):
        pins.parse(text)


def test_a_bad_requirement_is_one_line() -> None:
    with pytest.raises(UsageError) as caught:
        pins.parse("tensorflow==2.9,!=2.9.1")
    assert "\n" not in caught.value.message and "write PKG==VERSION" in caught.value.message


@pytest.mark.parametrize(("text", "meant"), [("tensorflw==2.13.0", "tensorflow==2.13.0"), ("torhc==2.5.1", "torch==2.5.1")])
def test_a_mistyped_framework_is_said_as_one(text: str, meant: str) -> None:
    with pytest.raises(UsageError) as caught:
        adhoc.environment(text, "cpu", ("torch",))
    assert f"did you mean {meant.split('==')[0]}? (--with '{meant}')" in caught.value.message
    assert "pin that release too" not in caught.value.message


def test_torch_environments_carry_numpy_as_users_have_it_unless_pinned(index: str) -> None:
    """torch >= 2.3 does not require numpy, users have it: every torch environment made from a pin
    gets it (a numpy 1.x below 2.3), except where the user pinned numpy themselves."""
    assert "numpy" in adhoc.environment("torch==2.5.1", "cpu", index_url=index).variants["cpu"].packages
    pinned = adhoc.environment("torch==2.5.1,numpy==1.26.4", "cpu", index_url=index).variants["cpu"].packages
    assert "numpy==1.26.4" in pinned and "numpy" not in pinned


def test_a_release_no_index_answers_for_is_unavailable_not_the_runs_failure() -> None:
    """Offline (a lent GPU machine, an air-gapped host): the pin is an environment that cannot be made,
    said with why; the run's other environments still run."""
    env = adhoc.environment("torch==2.11.0", "gpu", index_url="http://127.0.0.1:9/simple")
    assert env.unavailable.startswith("package index http://127.0.0.1:9/simple unreachable"), env.unavailable
    assert env.pin == "torch==2.11.0"  # its records are named by the pins asked for


def test_a_release_no_cuda_base_has_a_python_for_is_a_virtualenv_of_its_own_python(index: str) -> None:
    """torch 1.0.1 has wheels for Python 2.7 and 3.7, and no CUDA base image has either: no image, but
    its own CUDA build in a virtualenv of 3.7 (or 2.7 where 3.7 is missing), never 'unavailable'."""
    env = adhoc.environment("torch==1.0.1", "gpu", index_url=index)
    gpu = env.variants["gpu"]
    assert not env.unavailable and (env.python_version, env.other_pythons) == ("3.7", ("2.7",))
    assert gpu.base == "" and gpu.no_image == ("torch 1.0.1 has no wheel for the Python of any CUDA base "
                                               "(3.12, 3.10, 3.8, 3.6)")
    assert gpu.packages == ("torch==1.0.1", "numpy<2")
    newer = adhoc.environment("torch==2.5.1", "gpu", index_url=index)
    assert (newer.python_version, newer.other_pythons) == ("3.12", ("3.11",)) and newer.variants["gpu"].no_image == ""
    assert "no_image" not in newer.variants["gpu"].hashed()  # a definition without it keeps the hash it had


def test_the_other_pythons_are_nearest_first_newer_on_a_tie() -> None:
    assert adhoc.nearest(("2.7", "3.5", "3.6", "3.7", "3.8"), "3.7") == ("3.8", "3.6", "3.5", "2.7")


def test_a_virtualenv_takes_the_first_python_of_the_release_this_host_has() -> None:
    from harness.environments import venvs

    here = f"{sys.version_info[0]}.{sys.version_info[1]}"
    env = config.EnvDef(name="torch==1.0.1", family=("torch",), python_version="3.99", other_pythons=("3.98", here),
                        variants={"gpu": config.VariantDef(base="", packages=("torch==1.0.1",))})
    found = venvs.python_of(env)
    assert found is not None and found[1] == here
    assert venvs.python_of(replace(env, other_pythons=("3.98",))) is None
    assert venvs.not_found(replace(env, other_pythons=("3.98",))) == (
        "python3.99 not found (nor 3.98, which its pins also have wheels for): install it, or run with Docker")


def test_a_gpu_virtualenv_of_tensorflow_2_5_to_2_13_gets_the_cuda_11_wheels_its_base_would_give(index: str) -> None:
    """TF 2.9-2.13 load CUDA 11 by name and ship none: the plan names NVIDIA's cu11 wheels for a virtualenv
    (an image has them from its CUDA base); 2.14+ has its own (and-cuda), a CPU run needs none."""
    for release in ("2.9.2", "2.13.0"):
        gpu = adhoc.environment(f"tensorflow=={release}", "gpu", index_url=index).variants["gpu"]
        assert {w.split("==")[0] for w in gpu.venv_cuda} >= {"nvidia-cuda-runtime-cu11", "nvidia-cublas-cu11",
                                                               "nvidia-cudnn-cu11", "nvidia-cusolver-cu11"}
        assert all("==" in w and w.endswith(tuple("0123456789")) for w in gpu.venv_cuda)
    assert adhoc.environment("tensorflow==2.16.1", "gpu", index_url=index).variants["gpu"].venv_cuda == ()
    assert adhoc.environment("tensorflow==2.9.2", "cpu", index_url=index).variants["cpu"].venv_cuda == ()
    assert adhoc.environment("torch==2.5.1", "gpu", index_url=index).variants["gpu"].venv_cuda == ()


def test_tensorflow_2_4_loads_cusolver_by_cuda_11_0s_name_and_cupy_gets_nvrtc(index: str) -> None:
    """TF 2.4 was built for CUDA 11.0 (libcusolver.so.10): its virtualenv gets the cu11 wheels and that name
    linked to 11.8's .so.11. CuPy's CUDA 11.2+ builds compile with NVRTC at run time: theirs comes with the math
    libraries; the 11.1 build loads NVRTC by 11.1's name, which no 11.8 wheel ships, so it gets none."""
    tf24 = adhoc.environment("tensorflow==2.4.4", "gpu", index_url=index).variants["gpu"]
    assert "nvidia-cusolver-cu11==11.4.1.48" in tf24.venv_cuda
    assert tf24.venv_aliases == ("libcusolver.so.10=libcusolver.so.11",)
    assert adhoc.environment("tensorflow==2.9.2", "gpu", index_url=index).variants["gpu"].venv_aliases == ()
    for pin in ("cupy-cuda112==8.6.0", "cupy-cuda11x==13.6.0"):
        cupy = adhoc.environment(pin, "gpu", index_url=index).variants["gpu"]
        assert {"nvidia-cuda-nvrtc-cu11==11.8.89", "nvidia-cuda-runtime-cu11==11.8.89"} <= set(cupy.venv_cuda), pin
        assert not any("cudnn" in wheel for wheel in cupy.venv_cuda)
    assert adhoc.environment("cupy-cuda111==8.6.0", "gpu", index_url=index).variants["gpu"].venv_cuda == ()
    # TF 2.1-2.3: CUDA 10.1 and cuDNN 7, which no NVIDIA wheel ships, fetched (environments/venv_libs); cuBLAS 11
    tf23 = adhoc.environment("tensorflow==2.3.4", "gpu", index_url=index).variants["gpu"]
    assert tf23.venv_cuda == ("nvidia-cublas-cu11==11.11.3.6",) and len(tf23.venv_libraries) == 6
    assert tf23.venv_libraries[-1] == "wheel:cupy-cuda101==7.8.0:cupy/.data/lib/libcudnn.so.7"
    assert adhoc.environment("tensorflow==2.4.4", "gpu", index_url=index).variants["gpu"].venv_libraries == ()
    assert adhoc.environment("tensorflow==2.3.4", "cpu", index_url=index).variants["cpu"].venv_libraries == ()
    # CuPy 8 compiles with CUDA_PATH's headers (9 bundles its own): the runtime wheel's, of NVRTC's CUDA
    assert adhoc.environment("cupy-cuda112==8.6.0", "gpu", index_url=index).variants["gpu"].venv_cuda_path \
        == "nvidia/cuda_runtime"
    assert adhoc.environment("cupy-cuda11x==13.6.0", "gpu", index_url=index).variants["gpu"].venv_cuda_path == ""
    # CuPy before 13 cannot be imported without CUDA's libraries: its cpu image does not try (its cells say why)
    assert adhoc.environment("cupy-cuda112==8.6.0", "cpu", index_url=index).build_args("cpu")["IMPORTS"] == ""
    assert adhoc.environment("cupy-cuda11x==13.6.0", "cpu", index_url=index).build_args("cpu")["IMPORTS"] == "cupy"
    assert adhoc.environment("cupy-cuda112==8.6.0", "gpu", index_url=index).build_args("gpu")["IMPORTS"] == "cupy"
    # the framework's pin decides wherever it was written
    assert adhoc.environment("numpy==1.23.5,cupy-cuda112==8.6.0", "cpu", index_url=index).build_args("cpu")["IMPORTS"] == ""


def test_the_cuda_wheels_change_a_virtualenv_but_not_the_image(index: str) -> None:
    env = adhoc.environment("tensorflow==2.9.2", "gpu", index_url=index)
    without = replace(env, variants={"gpu": replace(env.variants["gpu"], venv_cuda=())})
    assert env.definition_hash("gpu") == without.definition_hash("gpu")  # the image is made from its CUDA base
    assert env.variants["gpu"].hashed() != without.variants["gpu"].hashed()  # the virtualenv installs them
    assert "venv_cuda" not in without.variants["gpu"].hashed()  # definitions without them keep their hash


def test_an_environments_name_reads_back_as_its_exact_pins() -> None:
    """A run's environment name is its pins joined by commas; a comma between extras is not a new pin, and what
    is no exact pin is passed over (read back from a record, not refused)."""
    found = pinned.exact("jax[cuda12,cudnn]==0.4.35,nvidia-cuda-nvcc-cu12==12.6.85,numpy<2,torch")
    assert [(req.name, sorted(req.extras), version) for req, version in found] == [
        ("jax", ["cuda12", "cudnn"], "0.4.35"), ("nvidia-cuda-nvcc-cu12", [], "12.6.85")]
