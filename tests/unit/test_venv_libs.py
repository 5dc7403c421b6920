"""The CUDA libraries a virtualenv fetches where no NVIDIA wheel ships them (TensorFlow 2.1-2.3: CUDA 10.1 from
Ubuntu's packages, cuDNN 7 from a wheel that bundles it): what is unpacked, what is refused, how it is said."""
from __future__ import annotations

from pathlib import Path

import pytest

from harness.common.fetched_libraries import said
from harness.environments import adhoc, venv_libs
from harness.frameworks import tensorflow
from tests.helpers import debian_package

LIBDIR = "usr/lib/x86_64-linux-gnu"


def test_a_debian_package_gives_its_shared_libraries_and_their_soname_links_only(tmp_path: Path) -> None:
    deb = debian_package(tmp_path / "libcudart10.1_10.1.243-3_amd64.deb",
                         {f"{LIBDIR}/libcudart.so.10.1.243": b"\x7fELF runtime",
                          f"{LIBDIR}/stubs/libcuda.so": b"a stub: never the driver",
                          "usr/share/doc/libcudart10.1/copyright": b"license"},
                         {f"{LIBDIR}/libcudart.so.10.1": "libcudart.so.10.1.243"})
    out = tmp_path / "cuda-libs"
    out.mkdir()
    assert sorted(venv_libs.unpack_deb_libraries(deb.read_bytes(), out)) == ["libcudart.so.10.1", "libcudart.so.10.1.243"]
    assert (out / "libcudart.so.10.1").is_symlink() and (out / "libcudart.so.10.1").read_bytes() == b"\x7fELF runtime"
    assert sorted(p.name for p in out.iterdir()) == ["libcudart.so.10.1", "libcudart.so.10.1.243"]
    with pytest.raises(ValueError, match="not an ar archive"):
        venv_libs.unpack_deb_libraries(b"PK\x03\x04 a zip", out)


def test_offline_a_package_missing_from_the_wheelhouse_is_one_line_naming_where_it_is(tmp_path: Path) -> None:
    problem = venv_libs.fetch(["deb:pool/multiverse/n/nvidia-cuda-toolkit/libcufft10_10.1.243-3_amd64.deb"],
                              tmp_path, ["pip", "download"], tmp_path / "wheelhouse", offline=True)
    assert problem == ("libcufft10_10.1.243-3_amd64.deb is not in the wheelhouse (offline); put "
                       "http://archive.ubuntu.com/ubuntu/pool/multiverse/n/nvidia-cuda-toolkit/"
                       "libcufft10_10.1.243-3_amd64.deb there")
    assert "neither deb:POOL-PATH nor wheel:PIN:MEMBER" in str(venv_libs.fetch(["tar:x"], tmp_path, [], None, True))


def test_tensorflow_2_1_to_2_3_fetch_cuda_10_1_and_cudnn_7_and_say_so() -> None:
    assert said(tensorflow.CUDA101_LIBRARIES) == ("libcudart10.1 10.1.243-3, libcufft10 10.1.243-3, libcurand10 10.1.243-3, "
                                                  "libcusolver10 10.1.243-3, libcusparse10 10.1.243-3 from Ubuntu's packages; "
                                                  "libcudnn.so.7 from cupy-cuda101==7.8.0's wheel")


def test_tensorflow_2_1_to_2_3_load_a_cublas_with_kernels_for_todays_gpus_under_10s_name() -> None:
    """CUDA 10.1's cuBLAS fails on Ampere and Hopper: cuBLAS 11.11 (its wheel) answers to libcublas.so.10."""
    for release in ("2.1.4", "2.2.3", "2.3.4"):
        pins = adhoc.environment(f"tensorflow=={release}", "gpu").variant("gpu")
        assert pins.venv_cuda == ("nvidia-cublas-cu11==11.11.3.6",) and pins.venv_aliases == ("libcublas.so.10=libcublas.so.11",)
        assert not [entry for entry in pins.venv_libraries if "cublas" in entry]


def test_tensorflow_1_14_to_2_0_load_the_same_libraries_under_cuda_10_0s_names() -> None:
    """No package holds CUDA 10.0 whole: 1.14-2.0 (which look it up by name) get 2.1-2.3's libraries answering to
    10.0's names; 1.13, which links it, gets none of them."""
    for pin in ("tensorflow-gpu==1.14.0", "tensorflow-gpu==1.15.5", "tensorflow-gpu==2.0.4"):
        pins = adhoc.environment(pin, "gpu").variant("gpu")
        assert pins.venv_libraries == tensorflow.CUDA101_LIBRARIES and pins.venv_cuda == tensorflow.HOPPER_CUBLAS
        assert dict(alias.split("=") for alias in pins.venv_aliases) == {
            "libcudart.so.10.0": "libcudart.so.10.1", "libcublas.so.10.0": "libcublas.so.11",
            "libcufft.so.10.0": "libcufft.so.10", "libcurand.so.10.0": "libcurand.so.10",
            "libcusolver.so.10.0": "libcusolver.so.10", "libcusparse.so.10.0": "libcusparse.so.10"}
    old = adhoc.environment("tensorflow-gpu==1.13.2", "gpu").variant("gpu")
    assert not (old.venv_libraries or old.venv_cuda or old.venv_aliases)
