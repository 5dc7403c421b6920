"""A GPU virtualenv of a release that ships no CUDA (TensorFlow 2.5-2.13) gets the CUDA wheels its CUDA
base would give an image, and its cells find their libraries by name, as the release loads them.

Real parts: a wheel laid out as NVIDIA's (``nvidia/<lib>/lib/lib*.so.N``, holding a real shared library),
pip installing it offline into a real virtualenv the tool makes, and a process of that virtualenv
loading the library by its name alone through the variables the venv backend gives a cell.
"""
from __future__ import annotations

import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from harness.definitions.config import EnvDef, VariantDef
from harness.environments import venv_cuda, venvs
from harness.environments.images import BuildOptions, index_reachable
from harness.measurement.backends.process import ProcessBackend
from tests.helpers import debian_package, old_pythons

VERSION = f"{sys.version_info[0]}.{sys.version_info[1]}"
LOAD = "import ctypes; ctypes.CDLL('libfakecuda.so.11'); print('loaded')"


LIBRARY = Path(sysconfig.get_config_var("DESTSHARED")) / f"math{sysconfig.get_config_var('EXT_SUFFIX')}"  # a real .so


def _wheel(folder: Path, name: str, files: dict[str, bytes]) -> None:
    """A wheel of ``name`` 1.0 holding ``files``, as pip installs one (metadata and RECORD)."""
    info = f"{name.replace('-', '_')}-1.0.dist-info"
    files = {**files, f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n".encode(),
             f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: false\nTag: py3-none-any\n"}
    record = "".join(f"{member},,\n" for member in [*files, f"{info}/RECORD"]).encode()
    with zipfile.ZipFile(folder / f"{name.replace('-', '_')}-1.0-py3-none-any.whl", "w") as wheel:
        for member, data in {**files, f"{info}/RECORD": record}.items():
            wheel.writestr(member, data)


def _nvidia_style_wheel(folder: Path) -> None:
    """nvidia-fakecuda-cu11 1.0: a shared library under nvidia/fakecuda/lib, as NVIDIA's cu11 wheels lay theirs."""
    _wheel(folder, "nvidia-fakecuda-cu11", {"nvidia/fakecuda/lib/libfakecuda.so.11": LIBRARY.read_bytes(),
                                            "nvidia/fakecuda/include/cuda_fp16.h": b"/* CUDA 11's half type */\n"})


@pytest.fixture()
def wheelhouse(tmp_path: Path) -> Path:
    """A wheelhouse holding the NVIDIA-style wheel; skips where this Python cannot make the virtualenv."""
    if venvs.find_python(VERSION) is None:
        pytest.skip(f"no python{VERSION} on PATH to make the virtualenv with")
    folder = tmp_path / "wheelhouse"
    folder.mkdir()
    _nvidia_style_wheel(folder)
    return folder



def test_the_cells_of_such_a_virtualenv_load_its_cuda_libraries_by_name(tmp_path: Path, wheelhouse: Path) -> None:
    version = VERSION
    env = EnvDef(name="old-tf", family=("tf2",), dockerfile="images/adhoc", python_version=version, default=False,
                 variants={"gpu": VariantDef(base="", packages=(), venv_cuda=("nvidia-fakecuda-cu11==1.0",))})
    notes: list[str] = []
    python, reused = venvs.ensure(env, "gpu", tmp_path / "venvs", BuildOptions(wheelhouse=wheelhouse, offline=True),
                                  notes.append)
    assert not reused and any("CUDA from NVIDIA's wheels (fakecuda 1.0)" in note for note in notes)
    library_path = venv_cuda.library_path(env, "gpu", python)
    assert library_path.endswith("/site-packages/nvidia/fakecuda/lib")
    backend = ProcessBackend(python=python, name="venv", library_path=library_path)
    done = subprocess.run([python, "-c", LOAD], env=backend.environment({}), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "loaded", done.stderr
    bare = subprocess.run([python, "-c", LOAD], env=ProcessBackend(python=python).environment({}), capture_output=True,
                          text=True, timeout=60)
    assert bare.returncode != 0 and "libfakecuda.so.11" in bare.stderr  # what a cell got before: nothing found
    plain = EnvDef(name="new-tf", family=("tf2",), dockerfile="images/adhoc", python_version=version, default=False,
                   variants={"gpu": VariantDef(base="", packages=())})
    assert venv_cuda.library_path(plain, "gpu", python) == ""  # a release that ships its own CUDA gets no path


def test_a_release_that_loads_an_older_soname_finds_the_newer_one_under_it(tmp_path: Path, wheelhouse: Path) -> None:
    """TensorFlow 2.4 loads libcusolver.so.10 (CUDA 11.0's name), which CUDA 11.8's wheel ships as .so.11: the
    virtualenv links the old name to the new library in a folder first on its cells' library path, and says so.
    A name no wheel ships refuses the virtualenv in one line naming it."""
    version = VERSION
    options = BuildOptions(wheelhouse=wheelhouse, offline=True)

    def env(name: str, alias: str) -> EnvDef:
        return EnvDef(name=name, family=("tf2",), dockerfile="images/adhoc", python_version=version, default=False,
                      variants={"gpu": VariantDef(base="", packages=(), venv_cuda=("nvidia-fakecuda-cu11==1.0",),
                                                  venv_aliases=(alias,))})

    notes: list[str] = []
    aliased = env("tf-2.4", "libfakecuda.so.10=libfakecuda.so.11")
    python, _ = venvs.ensure(aliased, "gpu", tmp_path / "venvs", options, notes.append)
    assert any("(fakecuda 1.0; libfakecuda.so.10 as libfakecuda.so.11)" in note for note in notes), notes
    library_path = venv_cuda.library_path(aliased, "gpu", python)
    assert library_path.split(":")[0].endswith(f"/{venv_cuda.ALIASES}")
    load_old = LOAD.replace("libfakecuda.so.11", "libfakecuda.so.10")
    backend = ProcessBackend(python=python, name="venv", library_path=library_path)
    done = subprocess.run([python, "-c", load_old], env=backend.environment({}), capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "loaded", done.stderr
    with pytest.raises(venvs.EnvSkipped, match=r"tf-bad: none of its CUDA wheels \(fakecuda 1.0\) holds "
                                               r"libfakecuda.so.12, which it loads as libfakecuda.so.9"):
        venvs.ensure(env("tf-bad", "libfakecuda.so.9=libfakecuda.so.12"), "gpu", tmp_path / "venvs", options,
                     notes.append)


HEADER = "import os; print(open(os.path.join(os.environ['CUDA_PATH'], 'include', 'cuda_fp16.h')).read().strip())"


def test_a_release_that_compiles_with_cudas_headers_finds_its_wheels_not_the_hosts(
        tmp_path: Path, wheelhouse: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """CuPy 8 compiles its kernels with the headers under CUDA_PATH (else /usr/local/cuda): a host's own CUDA of
    another major breaks NVRTC 11.8. Its cells get the CUDA wheel's folder as CUDA_PATH, over the host's; a
    --setenv CUDA_PATH still wins; a wheel without include/ refuses the virtualenv in one line."""
    options = BuildOptions(wheelhouse=wheelhouse, offline=True)

    def env(name: str, folder: str) -> EnvDef:
        return EnvDef(name=name, family=("cupy",), dockerfile="images/adhoc", python_version=VERSION, default=False,
                      variants={"gpu": VariantDef(base="", packages=(), venv_cuda=("nvidia-fakecuda-cu11==1.0",),
                                                  venv_cuda_path=folder)})

    notes: list[str] = []
    cupy8 = env("cupy-8", "nvidia/fakecuda")
    python, _ = venvs.ensure(cupy8, "gpu", tmp_path / "venvs", options, notes.append)
    assert any("(fakecuda 1.0; CUDA_PATH nvidia/fakecuda)" in note for note in notes), notes
    cuda_path = venv_cuda.cuda_path(cupy8, "gpu", python)
    assert cuda_path.endswith("/site-packages/nvidia/fakecuda")
    monkeypatch.setenv("CUDA_PATH", str(tmp_path / "host-cuda-13"))
    backend = ProcessBackend(python=python, name="venv", library_path=venv_cuda.library_path(cupy8, "gpu", python),
                             cuda_path=cuda_path)
    done = subprocess.run([python, "-c", HEADER], env=backend.environment({}), capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "/* CUDA 11's half type */", done.stderr
    assert backend.describe()["cuda_path"] == cuda_path
    assert backend.environment({"CUDA_PATH": "/opt/cuda-11.2"})["CUDA_PATH"] == "/opt/cuda-11.2"
    assert ProcessBackend(python=python, name="venv").environment({})["CUDA_PATH"] == str(tmp_path / "host-cuda-13")
    with pytest.raises(venvs.EnvSkipped, match=r"cupy-bad: none of its CUDA wheels \(fakecuda 1.0\) holds "
                                               r"nvidia/other/include, the CUDA headers it compiles its kernels with"):
        venvs.ensure(env("cupy-bad", "nvidia/other"), "gpu", tmp_path / "venvs", options, notes.append)


LOAD_FETCHED = "import ctypes; ctypes.CDLL('libfakecudart.so.10.1'); ctypes.CDLL('libfakednn.so.7'); print('loaded')"


def _bundling_wheel(folder: Path) -> None:
    """fakednn 1.0: another project's wheel that bundles a library under its own folder, as cupy-cuda101 7.8.0
    bundles libcudnn.so.7 (cupy/.data/lib)."""
    _wheel(folder, "fakednn", {"fakednn/__init__.py": b"", "fakednn/.data/lib/libfakednn.so.7": LIBRARY.read_bytes()})


def test_a_release_whose_cuda_no_wheel_ships_fetches_its_libraries_and_its_cells_load_them(
        tmp_path: Path, wheelhouse: Path) -> None:
    """TensorFlow 2.1-2.3 load CUDA 10.1 and cuDNN 7, which no NVIDIA wheel ships: their virtualenv takes the
    libraries from Ubuntu's package of them and from a wheel that bundles one (each from the wheelhouse here),
    into one folder first on its cells' library path, and says so; the virtualenv holds no package of that
    wheel. TensorFlow 1.14-2.0 load CUDA 10.0's names, which no package holds: the fetched 10.1 libraries answer to
    them. Offline, a package missing from the wheelhouse refuses it in one line naming where it is."""
    debian_package(wheelhouse / "libfakecudart10.1_1.0-1_amd64.deb",
                   {"usr/lib/x86_64-linux-gnu/libfakecudart.so.10.1.243": LIBRARY.read_bytes()},
                   {"usr/lib/x86_64-linux-gnu/libfakecudart.so.10.1": "libfakecudart.so.10.1.243"})
    _bundling_wheel(wheelhouse)
    fetched = ("deb:pool/multiverse/f/fake/libfakecudart10.1_1.0-1_amd64.deb",
               "wheel:fakednn==1.0:fakednn/.data/lib/libfakednn.so.7")

    def env(name: str, libraries: tuple[str, ...], aliases: tuple[str, ...] = ()) -> EnvDef:
        return EnvDef(name=name, family=("tf2",), dockerfile="images/adhoc", python_version=VERSION, default=False,
                      variants={"gpu": VariantDef(base="", packages=("nvidia-fakecuda-cu11==1.0",),
                                                  venv_libraries=libraries, venv_aliases=aliases)})

    notes: list[str] = []
    options = BuildOptions(wheelhouse=wheelhouse, offline=True)
    tf23 = env("tf-2.3", fetched)
    python, _ = venvs.ensure(tf23, "gpu", tmp_path / "venvs", options, notes.append)
    assert any("CUDA libraries fetched (libfakecudart10.1 1.0-1 from Ubuntu's packages; libfakednn.so.7 from "
               "fakednn==1.0's wheel)" in note for note in notes), notes
    assert "tf-2.3: fetching libfakednn.so.7 from fakednn==1.0's wheel (2 of 2)" in notes
    library_path = venv_cuda.library_path(tf23, "gpu", python)
    assert library_path.split(":")[0].endswith("/cuda-libs")
    backend = ProcessBackend(python=python, name="venv", library_path=library_path, cuda_libraries=fetched)
    done = subprocess.run([python, "-c", LOAD_FETCHED], env=backend.environment({}), capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "loaded", done.stderr
    assert backend.describe()["cuda_libraries"] == list(fetched)
    assert subprocess.run([python, "-c", "import fakednn"], capture_output=True).returncode != 0  # not installed
    tf20 = env("tf-2.0", fetched, ("libfakecudart.so.10.0=libfakecudart.so.10.1",))
    python, _ = venvs.ensure(tf20, "gpu", tmp_path / "venvs", options, notes.append)
    backend = ProcessBackend(python=python, name="venv", library_path=venv_cuda.library_path(tf20, "gpu", python))
    done = subprocess.run([python, "-c", LOAD_FETCHED.replace("libfakecudart.so.10.1", "libfakecudart.so.10.0")],
                          env=backend.environment({}), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "loaded", done.stderr
    with pytest.raises(venvs.EnvSkipped, match=r"tf-none: none of the libraries it fetched "
                                               r"\(libfakecudart10.1 1.0-1 from Ubuntu's packages; libfakednn.so.7 from "
                                               r"fakednn==1.0's wheel\) holds libfakecudart.so.10.2, which it loads as "
                                               r"libfakecudart.so.10.0"):
        venvs.ensure(env("tf-none", fetched, ("libfakecudart.so.10.0=libfakecudart.so.10.2",)), "gpu",
                     tmp_path / "venvs", options, notes.append)
    missing = ("deb:pool/multiverse/n/nvidia-cuda-toolkit/libcufft10_10.1.243-3_amd64.deb",)
    with pytest.raises(venvs.EnvSkipped, match=r"tf-bad: libcufft10_10.1.243-3_amd64.deb is not in the wheelhouse "
                                               r"\(offline\); put http://archive.ubuntu.com/ubuntu/pool/"):
        venvs.ensure(env("tf-bad", missing), "gpu", tmp_path / "venvs", options, notes.append)


def test_a_virtualenv_whose_pip_predates_manylinux2014_gets_the_last_pip_its_python_runs(tmp_path: Path) -> None:
    """Python 3.6's venv brings pip 18.1, which finds no manylinux2010/2014 wheel (TensorFlow 2.1-2.3's: "No
    matching distribution") and does not read an index's Requires-Python: the virtualenv is given pip 21.3.1,
    the last for 3.6, before its pins. Runs where a Python 3.6 is installed and PyPI answers."""
    python36 = next((path for path in old_pythons() if path.endswith("3.6")), None)
    if python36 is None or not index_reachable("https://pypi.org/simple"):
        pytest.skip("needs a Python 3.6 here and PyPI")
    env = EnvDef(name="old-pip", family=("tf2",), dockerfile="images/adhoc", python_version="3.6", default=False,
                 variants={"cpu": VariantDef(base="", packages=("six==1.16.0",))})
    notes: list[str] = []
    python, _ = venvs.ensure(env, "cpu", tmp_path / "venvs", BuildOptions(), notes.append)
    assert "old-pip: its pip 18.1 cannot install manylinux2014 wheels; upgrading pip first" in notes, notes
    version = subprocess.run([python, "-m", "pip", "--version"], capture_output=True, text=True, timeout=60).stdout
    assert version.startswith("pip 21.3.1 "), version


def test_a_virtualenv_made_without_the_index_it_asked_for_says_so_in_every_record(tmp_path: Path,
                                                                                  wheelhouse: Path) -> None:
    """PyTorch's CPU index unreachable: pip falls back to PyPI, whose torch is the CUDA build. The record named
    the index asked for, and a reused virtualenv gave no word of why a CPU host ran a CUDA build. The build
    keeps where its packages came from; every cell of it, made or reused, says so, and repro.md with it."""
    from harness.reporting.repro_md import _where

    asked = "http://127.0.0.1:9/whl/cpu"  # nothing listens on the discard port: refused at once
    env = EnvDef(name="torch-cpu", family=("torch",), dockerfile="images/adhoc", python_version=VERSION, default=False,
                 variants={"cpu": VariantDef(base="", packages=("nvidia-fakecuda-cu11==1.0",), index_url=asked,
                                             pip_options=("--no-index",))})
    notes: list[str] = []
    python, reused = venvs.ensure(env, "cpu", tmp_path / "venvs", BuildOptions(wheelhouse=wheelhouse), notes.append)
    assert not reused and any(f"package index {asked} unreachable" in n for n in notes), notes
    for _ in range(2):  # made, then reused: the same word
        said = ProcessBackend(python=python, name="venv", sources=venvs.sources_of(python)).describe()
        assert said["index_url"] is None
        assert said["index_note"] == (f"{asked} was unreachable when this virtualenv was made, so it came from PyPI: "
                                      "PyPI's torch is the CUDA build, and it runs on the CPU too")
        assert said["index_note"] in _where({**said, "packages": ["torch==2.4.1"]})  # type: ignore[typeddict-item]
        python, reused = venvs.ensure(env, "cpu", tmp_path / "venvs", BuildOptions(wheelhouse=wheelhouse), notes.append)
    assert reused
