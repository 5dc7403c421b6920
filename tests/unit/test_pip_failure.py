"""A virtualenv pip could not install: the pins' fault is the environment's answer (skipped), this host's (a full
disk, an index that stopped answering) a build that failed, which --resume builds again (environments/pip_failure)."""
from __future__ import annotations

from harness.environments import pip_failure

# pip 25's last lines, as the venv backend met them (the disk case: a replay on this machine, 2026-11-30)
DISK = "ERROR: Could not install packages due to an OSError: [Errno 28] No space left on device\n"
OFFLINE = ("WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) after connection "
           "broken by 'NewConnectionError(...: Failed to establish a new connection: [Errno -3] Temporary failure in "
           "name resolution')': /simple/tensorflow/\n"
           "ERROR: Could not find a version that satisfies the requirement tensorflow==2.9.2 (from versions: none)\n"
           "ERROR: No matching distribution found for tensorflow==2.9.2\n")
NO_SUCH = ("ERROR: Could not find a version that satisfies the requirement torch==9.9.9 (from versions: 2.2.0, "
           "2.13.0)\nERROR: No matching distribution found for torch==9.9.9\n")


def test_a_full_disk_or_a_silent_index_is_this_hosts_and_a_missing_release_the_pins() -> None:
    line, here = pip_failure.said(["tensorflow==2.9.2", "numpy<1.24"], DISK)
    assert here and line == ("pip could not install tensorflow==2.9.2 numpy<1.24 (ERROR: Could not install packages "
                             "due to an OSError: [Errno 28] No space left on device): this host's disk is full; mend "
                             "that, then --resume the run")
    line, here = pip_failure.said(["tensorflow==2.9.2"], OFFLINE)
    assert here and line.endswith("the package index stopped answering; mend that, then --resume the run")
    line, here = pip_failure.said(["torch==9.9.9"], NO_SUCH)
    assert not here and line == ("pip could not install torch==9.9.9 (ERROR: No matching distribution found for "
                                 "torch==9.9.9); fix the pins or run with Docker")
    assert pip_failure.said(["x"], "")[0] == "pip could not install x (no output); fix the pins or run with Docker"
