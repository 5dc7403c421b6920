"""The landing view: each cell's answer as the judge gives it (judgement/answer.py: colour, word,
amounts), and per column which release ran where on which machine. Decides nothing itself."""
from __future__ import annotations

import re
from collections.abc import Callable

from harness.judgement import answer
from harness.model.judged import Column, Glance, MatrixDoc
from harness.model.record import CellRecord

NO_GPU = "no GPU: host memory (RSS) only"
LEGEND = answer.LEGEND
decisive_step = answer.decisive_step


def text(glance: Glance) -> str:
    """A cell's answer in one phrase, as the judge worded it."""
    return str(glance["text"])


def columns(records: list[CellRecord], column: Callable[[CellRecord], str]) -> dict[str, Column]:
    """Each column's release line: framework versions, Python, CUDA, GPU, from its records' facts."""
    out: dict[str, Column] = {}
    for record in records:
        facts, host = record.get("facts") or {}, record.get("host") or {}
        seen = out.setdefault(column(record), {"frameworks": {}, "python": None, "cuda": None, "gpu": None, "driver": None,
                                               "ran": False})
        seen["ran"] = seen["ran"] or bool(host)  # a column whose environment was never built ran nowhere
        for name, version in (facts.get("frameworks") or {}).items():
            if name != "numpy":
                seen["frameworks"].setdefault(name, version)
        seen["python"] = seen["python"] or facts.get("python")
        seen["cuda"] = seen["cuda"] or cuda_of(record) or None
        seen["gpu"] = seen["gpu"] or (host.get("gpu") or {}).get("name")
        seen["driver"] = seen["driver"] or host.get("driver")
    return out


CUPY_BUILD = re.compile(r"^cupy-cuda(\d\d)(\d|x)\b")  # cupy-cuda112: built for 11.2; cupy-cuda12x: for any 12


def cuda_of(record: CellRecord) -> str:
    """The CUDA a cell ran: what the framework reports of its build (torch, TensorFlow), else CuPy's build from
    its distribution's name, else the CUDA runtime wheel it loaded (JAX's plugins, CuPy's [ctk]); '' where none."""
    facts = record.get("facts") or {}
    if facts.get("cuda"):
        return str(facts["cuda"])
    for package in (record.get("env") or {}).get("packages") or []:
        if found := CUPY_BUILD.match(str(package).lower()):
            major, minor = found.groups()
            return f"{major}.{minor}" if minor != "x" else f"{major}.x"
    wheels = facts.get("cuda_wheels") or {}
    runtime = next((v for k, v in wheels.items() if k.startswith("nvidia-cuda-runtime-cu")), None)
    return ".".join(str(runtime).split(".")[:2]) + " (runtime wheel)" if runtime else ""


def title(matrix: MatrixDoc) -> str:
    """What a run's page is called: what it measured (a run without a GPU measured host memory)."""
    if matrix.get("machine") == NO_GPU:
        return f"Host memory cleanup matrix, no GPU ({matrix['run']})"
    return f"GPU memory cleanup matrix ({matrix['run']})"


def machine(records: list[CellRecord]) -> str:
    """The machine the run measured, for the top of the page."""
    gpus = sorted({str(((r.get("host") or {}).get("gpu") or {}).get("name")) for r in records
                   if ((r.get("host") or {}).get("gpu") or {}).get("name")})
    drivers = sorted({str((r.get("host") or {}).get("driver")) for r in records if (r.get("host") or {}).get("driver")})
    if not gpus:
        return NO_GPU
    return ", ".join(gpus) + (f"; NVIDIA driver {', '.join(drivers)}" if drivers else "")
