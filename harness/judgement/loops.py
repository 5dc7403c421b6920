"""Checkpoints inside loops: a site's readings by iteration, and how fast they grow.

The agent labels a checkpoint that runs more than once ``file:line: source#n`` (iteration n)
and measures iterations 1-10, then every 10th up to 100, every 100th up to 1,000, and so on;
the record's ``loops`` says how many iterations each site really ran.

A site grows only when its slope stands clear of the readings' own jitter (more than three
standard errors of the fitted slope) and adds up, over the iterations run, to more than the
meter's smallest judged change; it is flat when its slope is inside that jitter and, were it real,
would add up to less than that change. A slope inside the jitter that would add up to more (three
iterations of a training loop whose first step makes the optimizer's state: 0, +470, +470 MiB) is
unclear: the readings are too few or too scattered to call it either. One rule for repro's loop
lines and bisect's growth criterion.

A loop is judged on every meter that can see it: where the chosen meter (NVML) stays flat because
the framework mapped its whole pool at the first touch, the framework's own in-use count
(``FRAMEWORK``) can still grow, and then the loop grows.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from harness.common.units import human_bytes
from harness.judgement.floors import blind_labels, in_use
from harness.judgement.tolerances import FRAMEWORK_RULE, METER_RULES, MeterRule
from harness.model.judged import Judged, LoopSummary
from harness.model.record import CellRecord, Checkpoint, meter_value

Points = list[tuple[int, int]]
# the states that are growth clear of the loop's noise: a leak per iteration, however little it adds up to over the
# iterations run (amber in a cell's answer, a side of a turn, "reproduces" in an issue's replay)
LEAKING = ("grows", "small")
UNSEEN = "unseen"  # the meter cannot see the loop (a pool mapped before it) and no framework count can: no answer
FRAMEWORK = "framework"  # the framework's own in-use count (the checkpoint's view), as a meter


def _rule(meter: str) -> MeterRule:
    return FRAMEWORK_RULE if meter == FRAMEWORK else METER_RULES[meter]


def value_of(cp: Checkpoint, meter: str) -> int | None:
    """A checkpoint's reading on ``meter``; on FRAMEWORK, the in-use bytes its frameworks report."""
    if meter != FRAMEWORK:
        return meter_value(cp.get("readings"), meter)
    return in_use(cp)


def site_of(label: str) -> tuple[str, int | None]:
    """(site, iteration) of a label; iteration None for a checkpoint outside a loop."""
    site, sep, n = label.rpartition("#")
    return (site, int(n)) if sep and n.isdigit() else (label, None)


def groups(checkpoints: list[Checkpoint], meter: str) -> dict[str, Points]:
    """Looped sites with two or more measured iterations: [(iteration, reading), ...]."""
    found: dict[str, Points] = {}
    for cp in checkpoints:
        site, n = site_of(cp["label"])
        value = value_of(cp, meter)
        if n is not None and value is not None and not cp.get("skipped"):
            found.setdefault(site, []).append((n, value))
    return {site: points for site, points in found.items() if len(points) >= 2}


def slope(points: Points) -> float:
    """Least-squares growth per iteration (bytes): robust to one noisy reading."""
    n = len(points)
    mean_x = sum(x for x, _ in points) / n
    mean_y = sum(y for _, y in points) / n
    var = sum((x - mean_x) ** 2 for x, _ in points)
    return sum((x - mean_x) * (y - mean_y) for x, y in points) / var if var else 0.0


SIGMAS = 3.0
STEADY = 5  # readings from which a loop's own scatter, not the meter's noise floor, bounds its trend


@dataclass(frozen=True)
class Trend:
    slope: float  # bytes per iteration, least squares
    noise: float  # bytes per iteration the slope cannot be told from (SIGMAS standard errors)
    iterations: int  # run at the site (the record's count where it has one)
    smallest: int  # the meter's smallest judged change
    readings: int = 3  # measured at the site: two readings make no trend (a line through any two points)

    @property
    def total(self) -> float:
        """The slope over the iterations run."""
        return self.slope * self.iterations

    @property
    def growing(self) -> bool:
        """Clear of the noise, and adding up to a change the meter judges, over three readings or more."""
        return self.readings >= 3 and self.slope > self.noise and self.total > self.smallest

    @property
    def state(self) -> str:
        """grows; flat (inside the noise, and too little to judge over the iterations run); unclear
        (inside the noise, but enough to judge were it real); small (clear of the noise, but adding up
        to less than the meter judges); twice (two readings: no trend). A sweep calls no turn on an
        unclear or twice-run loop; small and grows are the same side of one (LEAKING)."""
        if self.readings < 3:
            return "twice"
        if self.growing:
            return "grows"
        if self.slope > self.noise:
            return "small"
        return "unclear" if abs(self.slope) * self.iterations > self.smallest else "flat"

    def text(self) -> str:
        noise = f"noise ±{human_bytes(int(self.noise))}"
        if self.state == "twice":
            return (f"ran twice ({_signed(self.slope)} from the first reading to the second): two readings make no "
                    "trend, three or more are needed")
        if self.state == "grows":
            return f"grows {human_bytes(int(self.slope))} per iteration ({noise})"
        if self.state == "small":
            return (f"grows {human_bytes(int(self.slope))} per iteration ({noise}), "
                    f"{human_bytes(int(self.total))} over {self.iterations} iterations: clear of the noise, though "
                    f"under the {human_bytes(self.smallest)} this meter judges a cleanup by")
        if self.state == "unclear":
            return (f"unclear over {self.iterations} iterations (slope {_signed(self.slope)} per iteration, inside the "
                    f"{noise}: too few or too scattered readings to call it flat or growing)")
        return f"flat (slope {_signed(self.slope)} per iteration, within {noise})"


def trend(points: Points, meter: str, iterations: int | None = None) -> Trend:
    """The growth per iteration of ``points`` and whether it stands clear of their jitter."""
    rate = slope(points)
    n = len(points)
    mean_x = sum(x for x, _ in points) / n
    spread = sum((x - mean_x) ** 2 for x, _ in points)
    # never finer than the meter's noise floor spread over the iterations measured; from STEADY readings on,
    # their own scatter says what is noise, down to one reading's resolution (a steady 0.5 MiB a round
    # over 100 rounds is growth, however far under the meter's noise floor its total stays)
    floor = _rule(meter).abs_tol if n < STEADY else SIGMAS * _rule(meter).resolution  # one step is no trend
    noise = floor / max(1.0, float(points[-1][0] - points[0][0]))
    if n > 2 and spread:
        intercept = sum(y for _, y in points) / n - rate * mean_x
        residual = sum((y - (intercept + rate * x)) ** 2 for x, y in points) / (n - 2)
        noise = max(noise, SIGMAS * math.sqrt(residual / spread))
    return Trend(rate, noise, (iterations or points[-1][0]) - points[0][0] + 1, _rule(meter).min_signal, n)


def _signed(value: float) -> str:
    return ("-" if value < 0 else "+") + human_bytes(int(abs(value)))


def steepest(record: CellRecord, meter: str) -> tuple[str, int, Trend] | None:
    """A record's looped site that grows fastest: (site, iterations measured, its trend); None without a loop."""
    sites = groups(record.get("checkpoints") or [], meter)
    if not sites:
        return None
    site, points = max(sites.items(), key=lambda item: slope(item[1]))
    return site, len(points), trend(points, meter, (record.get("loops") or {}).get(site))


def _premapped_before(record: CellRecord, site: str, judged: Judged | None) -> bool:
    """Whether the loop at ``site`` began after the first touch of a pool mapped whole (floors.blind_labels)."""
    began = next((cp["label"] for cp in record.get("checkpoints") or [] if site_of(cp["label"])[0] == site
                  and site_of(cp["label"])[1] is not None), None)
    return began is not None and began in blind_labels(record, judged or record.get("verdicts") or {})


def summary(record: CellRecord, meter: str, judged: Judged | None = None) -> LoopSummary | None:
    """The matrix cell's loop line: the steepest site's growth per iteration, or flat, with its noise.
    Where ``meter`` does not see a loop grow and the framework's own count does, the framework's
    count answers, and the line says which meter saw what."""
    found = steepest(record, meter)
    if found is None:
        return None
    site, measured, rate = found
    line: LoopSummary = {"site": site, "measured": measured, "slope": int(rate.slope), "noise": int(rate.noise),
            "growing": rate.growing, "state": rate.state, "text": rate.text(), "meter": meter}
    if rate.growing:
        return line
    own = steepest(record, FRAMEWORK)
    if own is None and rate.state in ("flat", "unclear") and _premapped_before(record, site, judged):
        return {**line, "state": UNSEEN, "text": (
            f"not seen: the pool was mapped at the first touch, before the loop, so {meter.replace('_', ' ')} stays "
            "level whatever the loop does, and no framework count says what is in use (TensorFlow before 2.5)")}
    if own is None or not own[2].growing:
        return line
    site, measured, counted = own
    blind = {"flat": "flat", "unclear": "unclear"}.get(rate.state, "under what it judges")
    return {"site": site, "measured": measured, "slope": int(counted.slope), "noise": int(counted.noise),
            "growing": True, "state": "grows", "meter": FRAMEWORK,
            "text": f"{counted.text()} in the framework's own in-use count; {meter.replace('_', ' ')} {blind} "
                    f"(a pool mapped before the loop hides the growth from it)"}
