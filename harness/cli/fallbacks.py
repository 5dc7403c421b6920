"""Environments that run in virtualenvs because their images cannot be built here, said once per
cause: six environments on a machine where no registry answers are one line, not six. The cause is
said when its first environment meets it, before anything is built (a user reads why at once, not
after minutes of virtualenv builds); which environments it sent to virtualenvs is said with the plan."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass
class FallbackLines:
    """The ``fallback`` events of a run's preparation (they come from parallel threads): ``add`` gives
    the line to say at once for a cause met for the first time; ``lines`` names, at the plan, the
    environments each cause sent to virtualenvs, and forgets them."""

    by_cause: dict[str, list[Mapping[str, Any]]] = field(default_factory=dict)

    def due(self, kind: str) -> list[str]:
        """The lines to say before an event of ``kind``: the plan, or a skip or failure that follows
        from a fallback, comes after the fallbacks that led to it."""
        return self.lines() if kind in ("plan", "skipped", "failed") else []

    def add(self, data: Mapping[str, Any]) -> list[str]:
        """Keep ``data``; the line to say now where its cause is new (none where it was said already)."""
        cause = str(data.get("cause") or data["reason"])
        first = cause not in self.by_cause
        self.by_cause.setdefault(cause, []).append(data)
        return [f"virtualenv {data['env']}: {data['reason']}"] if first else []

    def lines(self) -> list[str]:
        said = []
        for events in self.by_cause.values():
            if len(events) > 1 and events[0].get("cause"):  # one alone was said whole when it came
                names = ", ".join(str(e["env"]) for e in events)
                said.append(f"virtualenv {len(events)} environments ({names}): their base images cannot be pulled, for "
                            f"the cause said above at {events[0]['env']}")
        self.by_cause.clear()
        return said
