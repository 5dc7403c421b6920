"""Environment definitions, read from matrix/environments.toml into frozen dataclasses.

Config is data: unknown keys are rejected with a suggestion, and nothing here reads the
process environment. The same definitions feed image builds (as build args) and the record.
"""
from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from .errors import UsageError, suggest

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

REPO = Path(__file__).resolve().parent.parent
DEFAULT_ENVIRONMENTS = REPO / "matrix" / "environments.toml"
IMAGE_PREFIX = "gpu-cleanup-matrix"
Variant = Literal["cpu", "gpu"]
VARIANTS: tuple[Variant, ...] = ("cpu", "gpu")


@dataclass(frozen=True, kw_only=True)
class VariantDef:
    base: str
    packages: tuple[str, ...]
    index_url: str = ""
    pip_options: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class EnvDef:
    name: str
    family: tuple[str, ...]
    dockerfile: str
    python: str = "python"
    user: str = "65534:65534"
    variants: dict[str, VariantDef] = field(default_factory=dict)

    def variant(self, variant: str) -> VariantDef:
        if variant not in self.variants:
            raise UsageError(f"environment {self.name!r} has no {variant!r} variant{suggest(variant, list(self.variants))}")
        return self.variants[variant]

    def image_tag(self, variant: str) -> str:
        return f"{IMAGE_PREFIX}/{self.name}:{variant}"

    def build_args(self, variant: str) -> dict[str, str]:
        v = self.variant(variant)
        return {
            "BASE": v.base,
            "VARIANT": variant,
            "PIP_PACKAGES": " ".join(v.packages),
            "PIP_INDEX": v.index_url,
            "PIP_OPTIONS": " ".join(v.pip_options),
        }

    def definition_hash(self, variant: str, repo: Path = REPO) -> str:
        """Changes whenever what the image would contain changes: pins or Dockerfile folder."""
        digest = hashlib.sha256(json.dumps(asdict(self.variant(variant)), sort_keys=True).encode())
        for folder in (repo / self.dockerfile, repo / "images" / "common"):
            for path in sorted(p for p in folder.rglob("*") if p.is_file()):
                digest.update(path.name.encode() + path.read_bytes())
        return digest.hexdigest()[:16]


def _check_keys(where: str, table: dict[str, Any], known: set[str]) -> None:
    for key in table:
        if key not in known:
            raise UsageError(f"{where}: unknown key {key!r}{suggest(key, sorted(known))}")


def _variant(where: str, table: dict[str, Any]) -> VariantDef:
    _check_keys(where, table, {"base", "packages", "index_url", "pip_options"})
    if "base" not in table or "packages" not in table:
        raise UsageError(f"{where}: needs 'base' and 'packages'")
    return VariantDef(base=str(table["base"]), packages=tuple(table["packages"]),
                      index_url=str(table.get("index_url", "")), pip_options=tuple(table.get("pip_options", ())))


def load_environments(path: Path = DEFAULT_ENVIRONMENTS) -> dict[str, EnvDef]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"cannot read environment definitions {path}: {exc}") from exc
    _check_keys(str(path), data, {"environments"})
    envs: dict[str, EnvDef] = {}
    for name, table in data.get("environments", {}).items():
        where = f"{path.name}: environments.{name}"
        _check_keys(where, table, {"family", "dockerfile", "python", "user", "variants"})
        variants = {}
        for vname, vtable in table.get("variants", {}).items():
            if vname not in VARIANTS:
                raise UsageError(f"{where}: unknown variant {vname!r}{suggest(vname, list(VARIANTS))}")
            variants[vname] = _variant(f"{where}.variants.{vname}", vtable)
        envs[name] = EnvDef(name=name, family=tuple(table["family"]), dockerfile=str(table["dockerfile"]),
                            python=str(table.get("python", "python")), user=str(table.get("user", "65534:65534")),
                            variants=variants)
    return envs


def select(envs: dict[str, EnvDef], names: list[str] | None) -> list[EnvDef]:
    """The environments named (all when none), or a UsageError naming the unknown one."""
    if not names:
        return list(envs.values())
    chosen = []
    for name in names:
        if name not in envs:
            raise UsageError(f"unknown environment {name!r}{suggest(name, list(envs))}")
        chosen.append(envs[name])
    return chosen
