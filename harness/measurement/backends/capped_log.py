"""A cell's log kept to its first and last MiB, so a script that prints without end never fills
the results disk or costs the cell its record; the file says how much was cut, and where."""
from __future__ import annotations

import threading
from pathlib import Path
from typing import IO

LOG_HEAD_BYTES = 1024 * 1024
LOG_TAIL_BYTES = 1024 * 1024


class CappedLog:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file: IO[bytes] | None = open(path, "wb")
        self._written = 0
        self._tail = bytearray()
        self._cut = 0

    def write(self, data: bytes) -> None:
        room = LOG_HEAD_BYTES - self._written
        if room > 0:
            self._to_file(data[:room])
            self._written += min(room, len(data))
            data = data[room:]
        if data:
            self._tail += data
            excess = len(self._tail) - LOG_TAIL_BYTES
            if excess > 0:
                del self._tail[:excess]
                self._cut += excess

    def close(self) -> None:
        if self._cut:
            self._to_file(f"\n[... {self._cut} bytes cut by the harness: this log keeps the first and last "
                          f"{LOG_TAIL_BYTES // 1024} KiB ...]\n".encode())
        self._to_file(bytes(self._tail))
        self._tail.clear()
        if self._file is not None:
            self._file.close()
            self._file = None

    def _to_file(self, data: bytes) -> None:
        """Write, and stop writing (never raise) once the disk refuses: the record matters more."""
        if self._file is None or not data:
            return
        try:
            self._file.write(data)
            self._file.flush()
        except OSError:
            self._file.close()
            self._file = None


def pump(stream: IO[bytes], log: CappedLog) -> threading.Thread:
    """Copy ``stream`` into ``log`` until it ends, in a thread; the log is closed at the end."""
    def run() -> None:
        try:
            for chunk in iter(lambda: stream.read1(65536), b""):  # type: ignore[attr-defined]
                log.write(chunk)
        except (OSError, ValueError):
            pass
        finally:
            log.close()
            stream.close()
    thread = threading.Thread(target=run, name="cell-log", daemon=True)
    thread.start()
    return thread
