"""tf1.8's Hopper stage: a library renamed in place binds the calls made against the old one.

TF 1.8 calls cublasSgemm_v2@libcublas.so.9.0. A library whose file and soname say libfoo.so.9.0 but
whose symbols are defined under version libfoo.so.11 does not satisfy such a call (the loader
refuses: version not found); after rename_version.py it does. Built and run for real with gcc.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.definitions.config import data_root

SCRIPT = data_root() / "images" / "tf1.8" / "rename_version.py"
pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")


def _library(folder: Path, soname: str, version: str, value: int) -> Path:
    (folder / "foo.c").write_text(f"int foo(void) {{ return {value}; }}\n")
    (folder / "foo.map").write_text(f"{version} {{ global: foo; local: *; }};\n")
    folder.mkdir(exist_ok=True)
    out = folder / soname
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(out), str(folder / "foo.c"), f"-Wl,-soname,{soname}",
                    f"-Wl,--version-script,{folder / 'foo.map'}"], check=True)
    return out


def test_renamed_versions_bind_calls_made_against_the_old_library(tmp_path: Path) -> None:
    old = tmp_path / "old"
    old.mkdir()
    _library(old, "libfoo.so.9.0", "libfoo.so.9.0", 9)  # what the program was linked against
    (tmp_path / "main.c").write_text('#include <stdio.h>\nint foo(void);\nint main(void) { printf("%d\\n", foo()); return 0; }\n')
    program = tmp_path / "main"
    subprocess.run(["gcc", "-o", str(program), str(tmp_path / "main.c"), f"-L{old}", "-l:libfoo.so.9.0"], check=True)
    new = tmp_path / "new"
    new.mkdir()
    library = _library(new, "libfoo.so.9.0", "libfoo.so.11", 11)  # the newer library, its soname already set

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(program)], capture_output=True, text=True, env={"LD_LIBRARY_PATH": str(new)})

    before = run()
    assert before.returncode != 0 and "libfoo.so.9.0" in before.stderr  # version `libfoo.so.9.0' not found
    renamed = subprocess.run([sys.executable, str(SCRIPT), str(library), "libfoo.so.11"], capture_output=True, text=True)
    assert renamed.returncode == 0, renamed.stderr
    assert "libfoo.so.11 -> libfoo.so.9.0" in renamed.stdout
    after = run()
    assert after.returncode == 0 and after.stdout.strip() == "11", after.stderr


def test_a_library_without_that_version_is_refused_in_one_line(tmp_path: Path) -> None:
    library = _library(tmp_path, "libbar.so.1", "libbar.so.1", 1)
    refused = subprocess.run([sys.executable, str(SCRIPT), str(library), "libbar.so.2"], capture_output=True, text=True)
    assert refused.returncode == 1
    assert refused.stderr.strip().endswith("defines no version libbar.so.2")
