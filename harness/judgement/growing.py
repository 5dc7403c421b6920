"""What grows with a loop: the script's containers whose length rises iteration by iteration.

At each sampled iteration of a loop the agent reads the lengths of the lists, dicts, sets and tuples the
script names (agent/sampled.py: ``len`` only, nothing walked). A name whose length rises at every reading
after the first is what the loop keeps ("`outputs` (list) gains 1 per iteration, 60 at #60"); the holder
search at the script's end says what it holds (judgement/holders.py). A length that goes up and down
(a batch rebuilt each iteration) is not growth.
"""
from __future__ import annotations

from dataclasses import dataclass

from harness.judgement import loops
from harness.model.record import Checkpoint

KERAS_GRAPH = "Keras' global graph"  # agent/keras_graph.NAME: its operations, read beside the script's containers
MIN_READINGS = 3  # two readings make no trend, as for memory


@dataclass(frozen=True)
class Growing:
    name: str  # as the holder search names it: "outputs", "train() local cache"
    per_iteration: float
    last: int  # its length at the last reading
    at: int  # that reading's iteration

    def text(self) -> str:
        rate = f"{self.per_iteration:.3g}"  # 15.005 operations a model (the first reading before any): 15
        if self.name == KERAS_GRAPH:  # not a name of the script's: what TF 2.0-2.3 keep of every model built
            return (f"{KERAS_GRAPH} gains {rate} operations per iteration ({self.last} when #{self.at} began): the models "
                    "built in the loop stay there, layers and all, until `tf.keras.backend.clear_session()`")
        return f"`{self.name}` gains {rate} per iteration ({self.last} when #{self.at} began)"


def growing(checkpoints: list[Checkpoint]) -> dict[str, list[Growing]]:
    """Loop site -> the names whose length rose at every sampled iteration, fastest first."""
    readings: dict[str, list[tuple[int, dict[str, int]]]] = {}
    for cp in checkpoints:
        site, n = loops.site_of(cp["label"])
        if n is not None and cp.get("sizes") is not None:
            readings.setdefault(site, []).append((n, cp.get("sizes") or {}))
    found: dict[str, list[Growing]] = {}
    for site, points in readings.items():
        if len(points) < MIN_READINGS:
            continue
        names = set.intersection(*(set(sizes) for _, sizes in points))
        rising = []
        for name in names:
            lengths = [sizes[name] for _, sizes in points]
            if all(b > a for a, b in zip(lengths, lengths[1:], strict=False)):
                steps = points[-1][0] - points[0][0]
                rising.append(Growing(name, (lengths[-1] - lengths[0]) / steps if steps else 0.0, lengths[-1],
                                      points[-1][0]))
        if rising:
            found[site] = sorted(rising, key=lambda g: (-g.per_iteration, g.name))
    return found
