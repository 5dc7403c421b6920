"""A claims.toml table without a key every claim needs is refused in one line naming it."""
from __future__ import annotations

from pathlib import Path

import pytest

from harness.common.errors import UsageError
from harness.judgement.claims import load_claims


def test_a_claim_without_its_seed_is_refused_naming_what_it_needs(tmp_path: Path) -> None:
    path = tmp_path / "claims.toml"
    path.write_text('[[claim]]\nid = "x"\nsays = "s"\nscenario = "torch/del_gc_empty_cache"\nstep = "after_del"\n'
                    'expect = ["released"]\n')
    with pytest.raises(UsageError, match=r"^claims\.toml: claim x needs seed$"):
        load_claims(path)
    path.write_text(path.read_text() + 'seed = "004"\n')
    assert [c.id for c in load_claims(path)] == ["x"]
