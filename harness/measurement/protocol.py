"""The host's side of the agent protocol, the same for every backend.

The agent writes JSON lines tagged with the cell's nonce; a line without that nonce (or that
is not JSON) is somebody else's output and is kept as text, never obeyed. The host
acknowledges a checkpoint by creating ``ack-<seq>`` in the ack folder, after measuring.
See harness/agent/agent.py for the agent's side.
"""
from __future__ import annotations

import json
import os
import queue
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Event:
    kind: str  # hello | checkpoint | end
    data: dict[str, Any]


EOF_EVENT = Event("eof", {})


def parse_line(line: str, nonce: str) -> Event | None:
    """The event a line carries, or None when it is not ours."""
    start = line.find("{")
    if start < 0 or nonce not in line:
        return None
    try:
        data = json.loads(line[start:])
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("nonce") != nonce or "event" not in data:
        return None
    return Event(str(data["event"]), data)


def split_lines(chunks: Iterable[bytes]) -> Iterable[str]:
    """Lines from a stream of arbitrary byte chunks (docker log streams are not line-aligned)."""
    pending = b""
    for chunk in chunks:
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for raw in lines:
            yield raw.decode("utf-8", "replace")
    if pending:
        yield pending.decode("utf-8", "replace")


@dataclass
class HostChannel:
    """Reads the agent's stream on a thread; hands events over one at a time."""

    nonce: str
    ack_dir: str
    stray_lines: list[str] = field(default_factory=list)
    closed: threading.Event = field(default_factory=threading.Event)  # the cell is over: stop watching
    _queue: queue.Queue[Event] = field(default_factory=queue.Queue)

    def follow(self, lines: Iterable[str]) -> None:
        thread = threading.Thread(target=self._pump, args=(lines,), name="agent-stream", daemon=True)
        thread.start()

    def _pump(self, lines: Iterable[str]) -> None:
        try:
            for line in lines:
                event = parse_line(line, self.nonce)
                if event is None:
                    if line.strip():
                        self.stray_lines.append(line)
                else:
                    self._queue.put(event)
        except Exception as exc:  # a broken stream ends the cell; the reason is kept
            self.stray_lines.append(f"[harness] agent stream broke: {exc}")
        finally:
            self._queue.put(EOF_EVENT)

    def watch(self, folder: str) -> None:
        """Also take the events a spawned worker leaves in ``folder`` as files (agent/spawned.py)."""
        thread = threading.Thread(target=self._poll, args=(folder,), name="worker-events", daemon=True)
        thread.start()

    def _poll(self, folder: str) -> None:
        while not self.closed.is_set():
            try:
                names = sorted(n for n in os.listdir(folder) if n.endswith(".json"))
            except OSError:
                return
            for name in names:
                path = os.path.join(folder, name)
                try:
                    with open(path, encoding="utf-8") as handle:
                        event = parse_line(handle.read(), self.nonce)
                    os.remove(path)
                except (OSError, ValueError):
                    continue
                if event is not None:
                    self._queue.put(event)
            self.closed.wait(0.002 if names else 0.01)

    def next_event(self, timeout: float) -> Event | None:
        """The next event, EOF_EVENT once the stream has closed, None after ``timeout`` s."""
        try:
            return self._queue.get(timeout=max(timeout, 0.0))
        except queue.Empty:
            return None

    def ack(self, seq: int | str) -> None:
        path = os.path.join(self.ack_dir, f"ack-{seq}")
        tmp = path + ".tmp"
        with open(tmp, "w") as handle:
            handle.write("ok\n")
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
