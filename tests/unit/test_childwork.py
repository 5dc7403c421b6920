"""A scenario's child process that fails before it allocates: the parent's error says why, from the child
itself (its traceback otherwise reaches only the cell's stderr), and still opens with the words the judge
reads (judgement/failures.py)."""
from __future__ import annotations

import pytest

from harness.agent import childwork


def failing_child() -> None:
    raise RuntimeError("CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm(...)`")


def test_the_parents_error_names_what_stopped_the_child() -> None:
    seen: list[str] = []
    with pytest.raises(RuntimeError) as raised:
        childwork.run_in_child(seen.append, failing_child)
    assert seen == ["ready"]
    assert str(raised.value) == ("the child exited with 1 before it reported its allocation: RuntimeError: CUDA "
                                 "error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm(...)`")
