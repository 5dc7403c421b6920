"""A TOML file of the tool's own data (claims, upstream reports), read with one clear line on failure."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from harness.common.errors import UsageError

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib


def read(path: Path, what: str) -> dict[str, Any]:
    """``path`` parsed; a UsageError naming ``what`` and the cause where it cannot be read or parsed."""
    try:
        data: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"cannot read {what} {path}: {exc}") from exc
    return data
