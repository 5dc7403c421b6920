"""How big a change each meter must show before it is judged, and how close to the floor counts as back.

NVML's per-process reading is exact to a few MiB, the device reading includes other processes,
RSS moves with the interpreter: each meter has its own noise floor (abs_tol) and smallest growth
judged (min_signal); the framework's own byte count has the tightest. Every table states these.
"""
from __future__ import annotations

from dataclasses import dataclass

from harness.common.units import human_bytes

MiB = 1024 * 1024
REL_TOL = 0.05
PRIMARY_ORDER = ("nvml_process", "nvml_device", "rss")
NVML_METERS = ("nvml_process", "nvml_device")
# each meter in words, where a reading is shown with its meter (a drill-down's step, bisect's table)
METER_WORDS = {"nvml_process": "GPU memory of the script's processes (NVML)",
               "nvml_device": "GPU memory in use on the whole device (NVML)", "rss": "host memory (RSS)"}


@dataclass(frozen=True)
class MeterRule:
    abs_tol: int  # a difference this small is noise on this meter
    min_signal: int  # growth below this is not judged
    resolution: int = MiB  # the finest step one reading shows (a loop's trend, once its own scatter is known)
    borderline: int = 16 * MiB  # growth this close to min_signal reads either side of it run to run: said, not judged
    release_band: int = 32 * MiB  # what is left this close to abs_tol reads released one run, partial the next


METER_RULES = {
    "nvml_process": MeterRule(abs_tol=8 * MiB, min_signal=16 * MiB, resolution=2 * MiB, borderline=2 * MiB,
                              release_band=4 * MiB),
    "nvml_device": MeterRule(abs_tol=64 * MiB, min_signal=128 * MiB, resolution=2 * MiB),
    "rss": MeterRule(abs_tol=64 * MiB, min_signal=128 * MiB),
}
# the framework's own byte count
FRAMEWORK_RULE = MeterRule(abs_tol=4 * MiB, min_signal=16 * MiB, borderline=MiB, release_band=MiB)
ABS_TOL = METER_RULES["rss"].abs_tol  # after exit: the device reading against the cell's start

TOLERANCES = {
    "rel_tol": REL_TOL,
    "meters": {m: {"abs_tol_bytes": r.abs_tol, "min_signal_bytes": r.min_signal, "borderline_bytes": r.borderline,
                   "release_band_bytes": r.release_band} for m, r in METER_RULES.items()},
    "framework": {"abs_tol_bytes": FRAMEWORK_RULE.abs_tol, "min_signal_bytes": FRAMEWORK_RULE.min_signal},
    "rule": "NVML against the pre-GPU reading + the runtime cost; released: left <= max(abs_tol, rel_tol * grown)",
}


def borderline(grown: int, meter: str) -> bool:
    """Growth within the meter's noise of the smallest judged change: one run reads it just under the
    floor (no signal), the next just over (judged); both say no signal, "borderline" with the figures."""
    rule = METER_RULES[meter]
    return abs(grown - rule.min_signal) < rule.borderline


def tolerance(grown: int, meter: str = "rss") -> float:
    return max(METER_RULES.get(meter, METER_RULES["rss"]).abs_tol, REL_TOL * grown)


def tolerances_text(host_only: bool = False) -> str:
    """One line for every table: how the verdicts were reached (host memory alone for a run without a GPU)."""
    if host_only:
        rss = METER_RULES["rss"]
        return (f"host memory (RSS) judged against the process's own reading before the measured code; released when "
                f"left <= max({human_bytes(rss.abs_tol)}, {REL_TOL:.0%} of growth); no signal below "
                f"{human_bytes(rss.min_signal)} of growth (borderline within {human_bytes(rss.borderline)} of it, and what "
                f"is left within {human_bytes(rss.release_band)} of the release line)")
    rules = ", ".join(f"{m} {human_bytes(r.abs_tol)}/{human_bytes(r.min_signal)}" for m, r in METER_RULES.items())
    return (f"GPU memory judged against the pre-GPU reading plus the runtime cost; released when left <= "
            f"max(abs_tol, {REL_TOL:.0%} of growth); abs_tol/min_signal per meter: {rules}; growth within the meter's "
            "noise of min_signal is borderline (no signal); left within it of abs_tol without a framework count, "
            "a borderline partial")


TOLERANCES["text"] = tolerances_text()
