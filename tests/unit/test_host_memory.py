"""Host memory of a script and the processes it forks, each page counted once: forked children add
their own pages (USS), not again the parent's they share (real processes, real fork)."""
from __future__ import annotations

import os
import time

from harness.common.units import host_memory, human_bytes
from harness.measurement import procs

MiB = 1 << 20


def _touched(size: int) -> bytearray:
    blob = bytearray(size)
    for i in range(0, size, 4096):
        blob[i] = 1
    return blob


def test_forked_children_are_not_counted_twice_and_their_own_pages_are() -> None:
    parent = _touched(200 * MiB)
    kids = []
    for own in (0, 64 * MiB):  # one child shares everything; the other writes 64 MiB of its own
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            os.close(r)
            mine = _touched(own) if own else None
            os.write(w, b"1")
            time.sleep(30)
            del mine
            os._exit(0)
        os.close(w)
        os.read(r, 1)
        os.close(r)
        kids.append(pid)
    try:
        pids = {os.getpid(), *kids}
        summed_rss = sum(procs._rss(p) or 0 for p in pids)
        counted = procs.rss_bytes(pids)
        alone = procs.rss_bytes({os.getpid()})
        assert counted is not None and alone is not None
        assert summed_rss > alone + 400 * MiB  # RSS of each would count the 200 MiB three times
        assert alone + 60 * MiB < counted < alone + 120 * MiB, (alone >> 20, counted >> 20)  # the 64 MiB child's own, once
        assert abs(alone - (procs._rss(os.getpid()) or 0)) < 8 * MiB  # one process: its RSS, as before
        total, children = procs.rss_split(pids)  # shown apart: the children's own pages, inside the total
        assert total is not None and children is not None and 60 * MiB < children < 120 * MiB <= total - children
        assert procs.rss_split({os.getpid()})[1] is None  # no child: nothing to say apart
        assert host_memory({"rss": total, "rss_children": children}).endswith(" in child processes)")
        assert host_memory({"rss": alone}) == human_bytes(alone)
    finally:
        for pid in kids:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        del parent

