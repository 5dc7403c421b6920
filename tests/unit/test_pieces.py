"""Wheels travel to the lent GPU machine in pieces, one call's carry each, and a call carries the
tracked checkout too (64 MiB in all): every piece must fit beside the checkout as it is now, and
the pieces must join back into the same bytes there."""
from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PIECES = ROOT / "tools" / "lab" / "pieces.sh"
CARRY = 64 * 1024 * 1024


def _tracked_on_disk() -> int:
    """The disk space the tracked files take, as the carry counts them (a small file takes a block)."""
    names = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    paths = [ROOT / n.decode() for n in names.split(b"\0") if n]
    return sum(p.stat().st_blocks * 512 for p in paths if p.is_file())


def test_pieces_fit_beside_the_checkout_and_join_to_the_same_bytes(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    blob = os.urandom(3 * 1024 * 1024) * 25  # 75 MiB: more than one piece
    (src / "wheel.whl").write_bytes(blob)
    subprocess.run(["bash", str(PIECES), "cut", str(tmp_path / "out"), "wh", "src"], cwd=tmp_path, check=True,
                   capture_output=True)
    pieces = sorted((tmp_path / "out" / "pieces").iterdir())
    assert len(pieces) >= 2
    assert max(p.stat().st_size for p in pieces) + _tracked_on_disk() <= CARRY
    store = tmp_path / "store"
    for piece in pieces:  # one call each, as the machine gets them
        carried = tmp_path / "call" / piece.name
        carried.parent.mkdir(parents=True, exist_ok=True)
        carried.write_bytes(piece.read_bytes())
        subprocess.run(["bash", str(PIECES), "collect", str(carried.parent), str(store)], check=True, capture_output=True)
        carried.unlink()
    (store / "pieces.sha256").write_bytes((tmp_path / "out" / "pieces.sha256").read_bytes())
    subprocess.run(["bash", str(PIECES), "join", str(store), "wh", str(tmp_path / "dest")], check=True, capture_output=True)
    joined = (tmp_path / "dest" / "src" / "wheel.whl").read_bytes()
    assert hashlib.sha256(joined).digest() == hashlib.sha256(blob).digest()
