"""The project's name for the `harness` package: `python -m gpu_cleanup_matrix`, and in a running IPython or
Jupyter kernel `%load_ext gpu_cleanup_matrix`, which adds `%memory_why` (what holds GPU and host memory now)."""
from typing import Any


def load_ipython_extension(ipython: Any) -> None:
    from harness.cli import memory_why

    memory_why.load(ipython)
