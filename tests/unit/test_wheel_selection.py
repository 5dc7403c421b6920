"""An image gets the wheels its pins reach, not the whole wheelhouse a sweep shares."""
from __future__ import annotations

import zipfile
from pathlib import Path

from harness.environments.wheel_selection import wheels_for


def _wheel(folder: Path, name: str, version: str, *requires: str, tag: str = "py3-none-any") -> str:
    filename = f"{name.replace('-', '_')}-{version}-{tag}.whl"
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n" + "".join(f"Requires-Dist: {r}\n" for r in requires)
    with zipfile.ZipFile(folder / filename, "w") as archive:
        archive.writestr(f"{name.replace('-', '_')}-{version}.dist-info/METADATA", metadata)
    return filename


def _names(paths: list[Path]) -> set[str]:
    return {p.name for p in paths}


def test_a_release_gets_its_own_cuda_wheels_and_not_the_other_releases(tmp_path: Path) -> None:
    old = _wheel(tmp_path, "torch", "2.12.1", "nvidia-cudnn-cu13==9.20.0.48", "filelock",
                 'triton==3.7.1; platform_machine == "x86_64"', tag="cp312-cp312-manylinux_2_28_x86_64")
    new = _wheel(tmp_path, "torch", "2.14.1", "nvidia-cudnn-cu13==9.24.0.43", "filelock",
                 tag="cp312-cp312-manylinux_2_28_x86_64")
    cudnn_old = _wheel(tmp_path, "nvidia-cudnn-cu13", "9.20.0.48", "nvidia-cublas")
    cudnn_new = _wheel(tmp_path, "nvidia-cudnn-cu13", "9.24.0.43", "nvidia-cublas")
    cublas = _wheel(tmp_path, "nvidia-cublas", "13.1.0.3")
    filelock = {_wheel(tmp_path, "filelock", v) for v in ("3.20.0", "3.32.5")}
    triton = _wheel(tmp_path, "triton", "3.7.1", tag="cp312-cp312-manylinux_2_28_x86_64")
    pip = _wheel(tmp_path, "pip", "25.3")
    chosen = _names(wheels_for(["torch==2.12.1"], tmp_path))
    assert chosen == {old, cudnn_old, cublas, triton, pip} | filelock  # a range keeps every version it allows
    assert new not in chosen and cudnn_new not in chosen
    assert _names(wheels_for(["torch==2.14.1"], tmp_path)) == {new, cudnn_new, cublas, pip} | filelock


def test_extras_decide_what_comes_along(tmp_path: Path) -> None:
    tf = _wheel(tmp_path, "tensorflow", "2.21.0", 'nvidia-cublas-cu12<13.0,>=12.5.3.2; extra == "and-cuda"',
                'numpy>=1.26; python_version >= "3.12"', tag="cp312-cp312-manylinux_2_27_x86_64")
    cublas = _wheel(tmp_path, "nvidia-cublas-cu12", "12.9.1.4")
    numpy = _wheel(tmp_path, "numpy", "2.3.5", tag="cp312-cp312-manylinux_2_28_x86_64")
    assert _names(wheels_for(["tensorflow==2.21.0"], tmp_path)) == {tf, numpy}  # a marker for another Python kept
    assert _names(wheels_for(["tensorflow[and-cuda]==2.21.0"], tmp_path)) == {tf, cublas, numpy}


def test_local_builds_match_their_release_and_unreadable_wheels_are_still_handed_over(tmp_path: Path) -> None:
    """torch==2.13.0 is the 2.13.0+cpu build too; a wheel that is no zip goes in for pip to refuse."""
    (tmp_path / "torch-2.13.0+cpu-cp311-cp311-linux_x86_64.whl").write_bytes(b"not a zip")
    (tmp_path / "README.txt").write_text("not a wheel")
    assert _names(wheels_for(["torch==2.13.0", "--prefer-binary", "https://example.invalid/x.whl"], tmp_path)) == {
        "torch-2.13.0+cpu-cp311-cp311-linux_x86_64.whl"}


def test_what_a_pin_binds_binds_the_projects_other_requirers_too(tmp_path: Path) -> None:
    """cuDNN asks for any cuBLAS, but pip must give TF 2.17 its 12.3: the other releases' cuBLAS stays out."""
    tf = _wheel(tmp_path, "tensorflow", "2.17.1", 'nvidia-cublas-cu12==12.3.4.1; extra == "and-cuda"',
                'nvidia-cudnn-cu12==9.1.0.70; extra == "and-cuda"', tag="cp312-cp312-manylinux_2_17_x86_64")
    cudnn = _wheel(tmp_path, "nvidia-cudnn-cu12", "9.1.0.70", "nvidia-cublas-cu12")
    _wheel(tmp_path, "nvidia-cudnn-cu12", "9.3.0.75", "nvidia-cublas-cu12")
    cublas = _wheel(tmp_path, "nvidia-cublas-cu12", "12.3.4.1")
    newer = _wheel(tmp_path, "nvidia-cublas-cu12", "12.5.3.2")
    assert _names(wheels_for(["tensorflow[and-cuda]==2.17.1"], tmp_path)) == {tf, cudnn, cublas}
    assert _names(wheels_for(["torch==2.5.1", "tensorflow==2.17.1"], tmp_path)) == {tf}  # no torch here: pip refuses
    # only with the extra does TF pin cuBLAS: without it, a bare requirement keeps every version
    assert _names(wheels_for(["nvidia-cudnn-cu12==9.1.0.70"], tmp_path)) == {cudnn, cublas, newer}


def test_a_pin_under_some_pythons_only_binds_nothing(tmp_path: Path) -> None:
    """The image's Python decides whether a marked pin applies: both cuBLAS versions stay."""
    tf = _wheel(tmp_path, "tensorflow", "2.17.1", 'nvidia-cublas-cu12==12.3.4.1; python_version < "3.12"',
                "nvidia-cudnn-cu12==9.1.0.70", tag="cp312-cp312-manylinux_2_17_x86_64")
    cudnn = _wheel(tmp_path, "nvidia-cudnn-cu12", "9.1.0.70", "nvidia-cublas-cu12")
    both = {_wheel(tmp_path, "nvidia-cublas-cu12", v) for v in ("12.3.4.1", "12.5.3.2")}
    assert _names(wheels_for(["tensorflow==2.17.1"], tmp_path)) == {tf, cudnn} | both


def test_a_range_binds_with_what_all_its_candidates_agree_on(tmp_path: Path) -> None:
    """Two cuDNNs fit the pin's range, each with its own cuBLAS: cuSOLVER's bare cuBLAS takes those two, not the third."""
    tf = _wheel(tmp_path, "tensorflow", "2.21.0", "nvidia-cudnn-cu12<10,>=9.3", "nvidia-cusolver-cu12",
                tag="cp312-cp312-manylinux_2_27_x86_64")
    cusolver = _wheel(tmp_path, "nvidia-cusolver-cu12", "11.7.5.82", "nvidia-cublas-cu12")
    cudnn = {_wheel(tmp_path, "nvidia-cudnn-cu12", "9.3.0.75", "nvidia-cublas-cu12==12.5.3.2"),
             _wheel(tmp_path, "nvidia-cudnn-cu12", "9.10.2.21", "nvidia-cublas-cu12==12.9.1.4")}
    cublas = {_wheel(tmp_path, "nvidia-cublas-cu12", v) for v in ("12.5.3.2", "12.9.1.4")}
    _wheel(tmp_path, "nvidia-cublas-cu12", "12.3.4.1")
    assert _names(wheels_for(["tensorflow==2.21.0"], tmp_path)) == {tf, cusolver} | cudnn | cublas
