"""Reading a package index: releases, the Pythons each has Linux wheels for, the releases between two."""
from __future__ import annotations

from pathlib import Path

import pytest
from packaging.version import Version

from harness.common.errors import UsageError
from harness.environments import pkgindex


def _entry(name: str, requires: str = "", yanked: bool = False) -> dict[str, object]:
    return {"filename": name, "requires-python": requires, "yanked": yanked}


def test_pythons_come_from_linux_wheels_and_requires_python() -> None:
    found = pkgindex.collect("jaxlib", [
        _entry("jaxlib-0.4.23-cp311-cp311-manylinux2014_x86_64.whl"),
        _entry("jaxlib-0.4.23-cp312-cp312-manylinux2014_x86_64.whl"),
        _entry("jaxlib-0.4.23-cp313-cp313-macosx_11_0_arm64.whl"),  # not Linux: no 3.13
        _entry("jaxlib-0.4.23-cp312-cp312t-manylinux2014_x86_64.whl"),  # free-threaded: not counted twice
    ])
    assert found[Version("0.4.23")].pythons() == ("3.12", "3.11")
    abi3 = pkgindex.collect("cupy", [_entry("cupy-13.0.0-cp39-abi3-manylinux2014_x86_64.whl", requires=">=3.9,<3.13")])
    assert abi3[Version("13.0.0")].pythons() == ("3.12", "3.11", "3.10", "3.9")
    pure = pkgindex.collect("six", [_entry("six-1.16.0-py2.py3-none-any.whl", requires=">=2.7, !=3.0.*")])
    assert "2.7" in pure[Version("1.16.0")].pythons() and "3.14" in pure[Version("1.16.0")].pythons()


def test_a_release_with_only_a_source_archive_has_no_python() -> None:
    found = pkgindex.collect("tensorflow", [_entry("tensorflow-0.12.0.tar.gz")])
    release = found[Version("0.12.0")]
    assert release.pythons() == () and release.sdist


def test_between_keeps_final_releases_in_order_and_drops_yanked_ones() -> None:
    files = [_entry(f"six-{v}-py2.py3-none-any.whl") for v in ("1.9.0", "1.10.0", "1.11.0", "1.12.0rc1", "1.12.0")]
    files.append(_entry("six-1.11.5-py2.py3-none-any.whl", yanked=True))
    found = pkgindex.collect("six", files)
    assert [str(v) for v in pkgindex.between(found, Version("1.12.0"), Version("1.9.0"))] == ["1.9.0", "1.10.0", "1.11.0",
                                                                                               "1.12.0"]
    assert Version("1.12.0rc1") in pkgindex.between(found, Version("1.9.0"), Version("1.12.0"), pre=True)


def test_a_folder_index_in_html_is_read_like_pypi(tmp_path: Path) -> None:
    page = tmp_path / "simple" / "demo-pkg"
    page.mkdir(parents=True)
    (page / "index.html").write_text(
        '<html><body><a href="demo_pkg-1.0.0-py3-none-any.whl" data-requires-python="&gt;=3.10">'
        'demo_pkg-1.0.0-py3-none-any.whl</a><a href="demo-pkg-0.9.tar.gz">demo-pkg-0.9.tar.gz</a></body></html>')
    found = pkgindex.releases("Demo_Pkg", (tmp_path / "simple").as_uri())
    assert found[Version("1.0.0")].pythons()[-1] == "3.10"
    assert found[Version("0.9")].sdist
    with pytest.raises(UsageError, match="no package 'nothing-here'"):
        pkgindex.releases("nothing-here", (tmp_path / "simple").as_uri())


def _wheel(folder: Path, name: str, version: str, tag: str, requires_python: str = "") -> None:
    import zipfile

    meta = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    meta += f"Requires-Python: {requires_python}\n" if requires_python else ""
    meta += "\nRequires-Python: >=9.9 (in the body: not a header)\n"
    with zipfile.ZipFile(folder / f"{name.replace('-', '_')}-{version}-{tag}.whl", "w") as archive:
        archive.writestr(f"{name.replace('-', '_')}-{version}.dist-info/METADATA", meta)


def test_a_plain_folder_of_wheels_is_an_index_of_its_own_files(tmp_path: Path) -> None:
    """A wheelhouse (pip's --find-links) lists each project's files among others': a name that only
    begins like the project's (jax-cuda13-pjrt beside jax) is another project."""
    _wheel(tmp_path, "jax", "0.8.3", "py3-none-any", ">=3.11")
    _wheel(tmp_path, "jax", "0.11.2", "py3-none-any", ">=3.12")
    _wheel(tmp_path, "jax-cuda13-pjrt", "0.9.2", "py3-none-manylinux_2_27_x86_64")
    _wheel(tmp_path, "jaxlib", "0.8.3", "cp312-cp312-manylinux_2_27_x86_64")
    (tmp_path / "jax-0.12.0.tar.gz").write_bytes(b"")
    for index in (str(tmp_path), tmp_path.as_uri()):
        found = pkgindex.releases("jax", index)
        assert sorted(found) == [Version("0.8.3"), Version("0.11.2"), Version("0.12.0")]
        assert found[Version("0.8.3")].pythons()[-1] == "3.11" and found[Version("0.11.2")].pythons()[-1] == "3.12"
        assert found[Version("0.12.0")].sdist and found[Version("0.12.0")].pythons() == ()
    assert sorted(pkgindex.releases("jaxlib", str(tmp_path))) == [Version("0.8.3")]
    assert sorted(pkgindex.releases("jax-cuda13-pjrt", str(tmp_path))) == [Version("0.9.2")]
    with pytest.raises(UsageError, match="no package 'torch'"):
        pkgindex.releases("torch", str(tmp_path))


def test_package_arg_keeps_extras_for_the_pins() -> None:
    assert pkgindex.package_arg("jax") == ("jax", "jax")
    assert pkgindex.package_arg("JAX[cuda13-local]") == ("JAX", "jax[cuda13-local]")
    with pytest.raises(UsageError, match="name the distribution alone"):
        pkgindex.package_arg("jax==0.8.3")
    with pytest.raises(UsageError, match="is not a distribution name"):
        pkgindex.package_arg("jax[")
