"""``python -m harness.examples [NAME]``: the same as ``gcm examples [NAME]`` (cli/examples.py), which
an installed tool runs without knowing where it was installed."""
from __future__ import annotations

import sys

from harness.cli import main

if __name__ == "__main__":
    sys.exit(main(["examples", *sys.argv[1:]]))
