"""`harness atlas`: every committed reference measurement as one static site and one dataset."""
from __future__ import annotations

import argparse

from rich.console import Console

from harness.common.errors import UsageError
from harness.common.units import human_bytes
from harness.definitions import config
from harness.reporting import atlas_site


def main(args: argparse.Namespace, err: Console, out: Console) -> int:
    root = args.references or config.data_root() / "matrix" / "reference"
    if not root.is_dir():
        raise UsageError(f"no reference runs at {root} (give --references FOLDER, a folder of run folders)")
    with err.status("building the atlas") as status:
        found = atlas_site.build(root, args.out, lambda text: status.update(text))
    out.print(f"atlas: {found['cells']} cells, {found['techniques']} techniques, {found['releases']} framework releases "
              f"({found['columns']} columns of release and hardware) from {found['runs']} runs; "
              f"{human_bytes(found['bytes'])} in {args.out}/ (open {args.out / 'index.html'})", soft_wrap=True)
    return 0
