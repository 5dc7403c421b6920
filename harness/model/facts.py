"""What a cell's environment really ran, as its agent saw it (agent/framework_view.facts): part of the cell
record (model/record.py), typed so a reader's misspelt key fails the type check. Keys it does not name are
kept as they came (pydantic's ``extra="allow"``, as every part of the record)."""
from __future__ import annotations

from typing_extensions import TypedDict


class Facts(TypedDict, total=False):
    python: str | None
    implementation: str
    frameworks: dict[str, str]  # each framework imported, and numpy, with its version
    cuda: str | None  # the CUDA the framework was built with
    cudnn: int | str | None  # torch's as a number (7603), TensorFlow's as its build says ("8")
    gpu_devices: dict[str, int]  # the GPUs each framework saw
    gpu_seen: str | None
    built_with_cuda: bool | None  # TensorFlow's
    cuda_wheels: dict[str, str]  # the pip-installed CUDA libraries and their versions


setattr(Facts, "__pydantic_config__", {"extra": "allow"})  # noqa: B010
