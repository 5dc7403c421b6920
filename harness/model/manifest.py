"""A run's manifest (store/results.MANIFEST): its plan, where and how it ran, and what was asked, so a
reader knows the cells that never finished and --resume plans the same cells again (running/resume.py)."""
from __future__ import annotations

from typing import Any

from typing_extensions import TypedDict


class ExtraEnv(TypedDict):
    """An environment named on the command line (--image, --interpreter), rebuilt on --resume."""

    image: str
    interpreter: str
    family: list[str]


class RequestItem(TypedDict, total=False):
    """A user's script the run measures (repro), as it was asked for."""

    path: str
    timeout: float | None
    argv: list[str]
    launch: list[str]  # the launcher's argv before the script (torchrun ...)
    command: str
    cells: str | None  # a notebook's cells, "first-last"


class Request(TypedDict, total=False):
    """What was asked (resume.request_of): each kept option of MatrixOptions as it was, and what the command
    line named beyond the environment file."""

    envs: list[str] | None
    scenarios: list[str] | None
    variant: str | None
    timeout: float | None
    params: dict[str, Any]
    gpu_mode: str | None
    backend: str
    setenv: dict[str, str]
    with_pins: list[str]
    pip: list[str]
    with_python: str
    index_url: str
    cluster: str | None
    extra_envs: list[ExtraEnv]
    items: list[RequestItem] | None


class Manifest(TypedDict, total=False):
    schema_version: int
    run_id: str
    tool_version: str
    variant: str
    variant_reason: str
    backend: str
    backend_reason: str
    skipped: dict[str, str]  # environment -> why it did not run here
    gpu_mode: str | None
    gpu_mode_reason: str | None
    planned: list[list[str]]  # [environment, scenario] of every cell planned
    environments: dict[str, dict[str, Any]]  # each environment's kind, family and pins
    host: dict[str, Any]  # the driver, the GPUs, whether NVML answered
    fallback: str  # the executor's own word on where the cells went instead
    cluster: Any  # a cluster's executor: what it offered
    request: Request
    note: str  # the run's own line above its table (a sweep's range, the variant and why): matrix.json is made again
