"""Environments that run in virtualenvs because their images cannot be built here, said once per
cause: six environments on a machine where no registry answers are one line, not six."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass
class FallbackLines:
    """The ``fallback`` events of a run's preparation (they come from parallel threads), kept until
    the plan is said; ``lines`` gives one line per cause and forgets them."""

    by_cause: dict[str, list[Mapping[str, Any]]] = field(default_factory=dict)

    def due(self, kind: str) -> list[str]:
        """The lines to say before an event of ``kind``: the plan, or a skip or failure that follows
        from a fallback, comes after the fallbacks that led to it."""
        return self.lines() if kind in ("plan", "skipped", "failed") else []

    def add(self, data: Mapping[str, Any]) -> None:
        self.by_cause.setdefault(str(data.get("cause") or data["reason"]), []).append(data)

    def lines(self) -> list[str]:
        said = []
        for cause, events in self.by_cause.items():
            if len(events) == 1 or not events[0].get("cause"):
                said += [f"virtualenv {e['env']}: {e['reason']}" for e in events]
            else:
                names = ", ".join(str(e["env"]) for e in events)
                said.append(f"virtualenv {len(events)} environments ({names}): their base images are not on this host "
                            f"and cannot be pulled ({cause}): run in virtualenvs of the same pins instead")
        self.by_cause.clear()
        return said
