"""GPU containers share a CUDA JIT cache on the host, as a bare run keeps ~/.nv between runs."""
from __future__ import annotations

from pathlib import Path

import pytest

from harness.measurement.backends import jit_cache


def test_the_cache_folder_is_writable_by_the_cells_user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    folder = jit_cache.folder()
    assert folder == tmp_path / "gpu-cleanup-matrix" / "cuda-cache"
    assert folder.stat().st_mode & 0o7777 == 0o1777  # nobody (the cells' user) writes, none removes another's
    assert jit_cache.folder() == folder  # again: no error, same folder


def test_an_image_that_sets_its_own_cache_keeps_it() -> None:
    assert jit_cache.environment({}) == {"CUDA_CACHE_PATH": jit_cache.MOUNT, "CUDA_CACHE_MAXSIZE": str(4 * 1024**3)}
    own = jit_cache.environment({"CUDA_CACHE_PATH": "/cache", "PATH": "/usr/bin"})
    assert "CUDA_CACHE_PATH" not in own and own["CUDA_CACHE_MAXSIZE"] == jit_cache.MAX_BYTES
