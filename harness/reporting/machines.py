"""Telling machines apart in one matrix: records from several GPU models or drivers (a Ray
cluster of mixed nodes, or runs merged by hand) get a column per environment x machine, so the
same environment on an H100 and on an H200 sits side by side instead of overwriting itself."""
from __future__ import annotations

from collections.abc import Callable

from harness.model.record import CellRecord

Namer = Callable[[CellRecord], str]


def _gpu(record: CellRecord) -> str:
    return str(((record.get("host") or {}).get("gpu") or {}).get("name") or "no GPU")


def _driver(record: CellRecord) -> str:
    return str((record.get("host") or {}).get("driver") or "no driver")


def column_namer(records: list[CellRecord]) -> Namer:
    """record -> its column: the environment's name, with `` @ GPU model`` (and the driver where
    only drivers differ) once the records come from more than one machine."""
    measured = [r for r in records if r.get("host")]
    gpus = {_gpu(r) for r in measured}
    drivers = {_driver(r) for r in measured}

    def plain(record: CellRecord) -> str:
        return str(record["env"]["name"])

    if len(gpus) > 1:
        return lambda r: plain(r) + (f" @ {_gpu(r)}" if r.get("host") else "")
    if len(drivers) > 1:
        return lambda r: plain(r) + (f" @ {_gpu(r)}, driver {_driver(r)}" if r.get("host") else "")
    return plain
