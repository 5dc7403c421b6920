"""Why pip could not install an environment's pins: the pins themselves, or this host.

A pin pip cannot resolve (no such release, no wheel for this Python) is the environment's answer here: it is
skipped. A full disk, or an index that stopped answering, is this host's state at the time: the environment
failed to build, and ``--resume RUN_DIR`` builds it again once that is mended, as it does a failed image.
"""
from __future__ import annotations

import re

# pip's own words for a cause on this host, not in the pins
HOST_CAUSES = (
    (re.compile(r"No space left on device|\[Errno 28\]|Disk quota exceeded"), "this host's disk is full"),
    (re.compile(r"Temporary failure in name resolution|Name or service not known|Network is unreachable|"
                r"Connection (?:refused|reset|aborted)|Read timed out|ConnectTimeoutError|ProxyError|"
                r"NewConnectionError|Max retries exceeded"), "the package index stopped answering"),
)


def host_cause(output: str) -> str | None:
    """The cause on this host in pip's output, in words, or None where the pins are what failed."""
    return next((said for pattern, said in HOST_CAUSES if pattern.search(output)), None)


def said(packages: list[str], output: str) -> tuple[str, bool]:
    """The line a failed install is said in, and whether the cause is this host's (the environment then failed to
    build: --resume builds it again) rather than the pins' (skipped)."""
    tail = output.strip().splitlines()[-1] if output.strip() else "no output"
    cause = host_cause(output)
    if cause:
        return f"pip could not install {' '.join(packages)} ({tail}): {cause}; mend that, then --resume the run", True
    return f"pip could not install {' '.join(packages)} ({tail}); fix the pins or run with Docker", False
