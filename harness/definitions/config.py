"""Environment definitions, read from matrix/environments.toml into frozen dataclasses.

Config is data: the file is checked as a whole against a schema (schema.py) and every problem
is listed with its line before anything runs; nothing here reads the process environment but
HARNESS_IMAGE_PREFIX, the namespace of the images. The
same definitions feed image builds (as build args) and the record.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, cast

from harness import frameworks
from harness.common.errors import UsageError, suggest
from harness.definitions import schema

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]
PACKAGED = Path(__file__).resolve().parents[1] / "resources"  # an installed wheel's copy of matrix/ and images/ (setup.py)


def data_root() -> Path:
    """Where matrix/*.toml and images/ are: the checkout when run from one, else the installed copy."""
    return REPO if (REPO / "matrix" / "environments.toml").is_file() else PACKAGED


ENVIRONMENTS_FILE = "environments.toml"
_chosen: list[Path] = []  # the environments file the command line chose (--environments, or the working folder's)


def use_environments(path: Path | None) -> Path:
    """Make ``path`` (else ./environments.toml when there is one, else the tool's own) the file every
    command reads its environments from; returns the file chosen."""
    chosen = path or (Path.cwd() / ENVIRONMENTS_FILE if (Path.cwd() / ENVIRONMENTS_FILE).is_file() else None)
    _chosen[:] = [chosen.resolve()] if chosen else []
    return environments_file()


def environments_file() -> Path:
    return _chosen[0] if _chosen else data_root() / "matrix" / ENVIRONMENTS_FILE
IMAGE_PREFIX = "gpu-cleanup-matrix"
IMAGE_PREFIX_VARIABLE = "HARNESS_IMAGE_PREFIX"  # another namespace for the images (the tests build under their own)


DEFAULT_INDEX = "https://pypi.org/simple"  # where pins are looked up (pkgindex), unless --index-url says
BASE_MIRROR_VARIABLE = "HARNESS_BASE_MIRROR"


def mirrored(base: str) -> str:
    """The image a build starts from for ``base``: under HARNESS_BASE_MIRROR's prefix where it is set
    (a registry mirror, ``mirror.example.com/hub``, or local stand-ins a machine without a registry
    made itself), else ``base`` as the definition names it. The definition, and its hash, keep the
    public name: the mirror serves the same image."""
    mirror = os.environ.get(BASE_MIRROR_VARIABLE, "").strip().rstrip("/")
    return f"{mirror}/{base}" if mirror and base else base


def image_prefix() -> str:
    """The repository prefix of this tool's images: HARNESS_IMAGE_PREFIX, else gpu-cleanup-matrix."""
    return os.environ.get(IMAGE_PREFIX_VARIABLE) or IMAGE_PREFIX
Variant = Literal["cpu", "gpu"]
VARIANTS: tuple[Variant, ...] = ("cpu", "gpu")


# what a virtualenv alone is given (NVIDIA's CUDA wheels, their links and headers): never in an image's definition
VENV_ONLY = ("venv_cuda", "venv_aliases", "venv_cuda_path", "venv_libraries")


@dataclass(frozen=True, kw_only=True)
class VariantDef:
    base: str
    packages: tuple[str, ...]
    index_url: str = ""
    pip_options: tuple[str, ...] = ()
    # wheels a step of the env's Dockerfile fetches for itself, never installed into its Python
    # (tf1.8's Hopper cuBLAS: a Python 3 wheel in a Python 2.7 image)
    stage_packages: tuple[str, ...] = ()
    no_image: str = ""  # why no image can be built for it (its pins still make a virtualenv)
    # CUDA wheels a virtualenv installs beside the pins, their libraries on its cells' library path (what the
    # variant's CUDA base gives an image): TensorFlow 2.5-2.13
    venv_cuda: tuple[str, ...] = ()
    # sonames the release loads that those wheels ship under a newer one ("libcusolver.so.10=libcusolver.so.11")
    venv_aliases: tuple[str, ...] = ()
    venv_cuda_path: str = ""  # the folder of those wheels whose include/ its cells' CUDA_PATH names (CuPy 8)
    venv_libraries: tuple[str, ...] = ()  # CUDA libraries fetched from Ubuntu's packages or a wheel (TF 2.1-2.3)

    def hashed(self) -> dict[str, Any]:
        """What a definition's hash covers: the optional fields only where set, so every definition
        without them keeps the hash it had."""
        optional = ("stage_packages", "no_image", *VENV_ONLY)
        return {k: v for k, v in asdict(self).items() if k not in optional or v}


@dataclass(frozen=True, kw_only=True)
class EnvDef:
    """One column of the matrix. Exactly one of three kinds:

    * ``dockerfile``: an image this tool builds (per variant, pins as build args);
    * ``image``: an existing image reference (a team's training image, the image of a bug
      report): never built, pulled only when asked;
    * ``interpreter``: a local Python (the process backend), for GPU hosts without Docker.
    """

    name: str
    family: tuple[str, ...]
    dockerfile: str = ""
    image: str = ""
    interpreter: str = ""
    python: str = "python"
    python_version: str = ""  # for the venv backend: make the virtualenv with python<version>
    other_pythons: tuple[str, ...] = ()  # where that Python is not on the host: these, in order, also have its wheels
    user: str = "65534:65534"
    default: bool = True  # part of a plain `matrix` run; False: only when named with --env
    variants: dict[str, VariantDef] = field(default_factory=dict)
    pin: str = ""  # made from --with PKG==VER (adhoc.py): the pins it was asked for
    # modules an image build must import to count as built; None: its families' modules; (): none (CuPy before 13 in
    # a cpu image: it cannot import without CUDA's libraries)
    imports: tuple[str, ...] | None = None
    unavailable: str = ""  # why this environment cannot be made here (its cells are skipped)

    @property
    def kind(self) -> Literal["build", "image", "process"]:
        if self.interpreter:
            return "process"
        return "image" if self.image else "build"

    def variant(self, variant: str) -> VariantDef:
        if variant not in self.variants:
            raise UsageError(f"environment {self.name!r} has no {variant!r} variant{suggest(variant, list(self.variants))}")
        return self.variants[variant]

    def image_tag(self, variant: str) -> str:
        """The tag runs build and use: one per definition (PREFIX/ENV:VARIANT-HASH), so users of one
        engine whose pins for an environment differ never overwrite each other's image."""
        return self.image or f"{self.alias_tag(variant)}-{self.definition_hash(variant)}"

    def alias_tag(self, variant: str) -> str:
        """PREFIX/ENV:VARIANT: the definition built last on this engine, for `docker run` by hand."""
        return self.image or f"{image_prefix()}/{re.sub(r'[^a-z0-9._-]+', '-', self.name.lower())}:{variant}"

    def build_args(self, variant: str) -> dict[str, str]:
        """What an image build receives: BASE as a build arg, the rest in the build context's pins.env."""
        v = self.variant(variant)
        imports = modules_of(self.family) if self.imports is None else self.imports
        return {
            "BASE": mirrored(v.base),
            "PIP_PACKAGES": " ".join(v.packages),
            "PIP_INDEX": v.index_url,
            "PIP_OPTIONS": " ".join(v.pip_options),
            "IMPORTS": " ".join(imports),
            **({"STAGE_PACKAGES": " ".join(v.stage_packages)} if v.stage_packages else {}),
        }

    def definition_hash(self, variant: str, repo: Path | None = None) -> str:
        """Changes whenever what the image would contain changes: pins or Dockerfile folder."""
        # a virtualenv's CUDA wheels are not in an image
        pins = {k: v for k, v in self.variant(variant).hashed().items() if k not in VENV_ONLY}
        digest = hashlib.sha256(json.dumps(pins, sort_keys=True).encode())
        repo = repo or data_root()
        for folder in (repo / self.dockerfile, repo / "images" / "common"):
            for path in sorted(p for p in folder.rglob("*") if p.is_file()):
                digest.update(path.name.encode() + path.read_bytes())
        return digest.hexdigest()[:16]


def _variant(table: schema.VariantTable) -> VariantDef:
    return VariantDef(base=str(table["base"]), packages=tuple(table["packages"]),
                      index_url=str(table.get("index_url", "")), pip_options=tuple(table.get("pip_options", ())),
                      stage_packages=tuple(table.get("stage_packages", ())))


def _dockerfile(folder: str, source: Path) -> str:
    """``folder`` as a path the builder finds: beside ``source`` when it is there, else the tool's own."""
    if folder and not Path(folder).is_absolute() and (source.parent / folder / "Dockerfile").is_file():
        return str((source.parent / folder).resolve())
    return folder


def load_environments(path: Path | None = None) -> dict[str, EnvDef]:
    """Every environment of ``path`` (the chosen file by default); a UsageError listing every problem
    with its line otherwise. A ``dockerfile`` folder is looked up beside the file first, then among
    the tool's own images, so a user's file can name both."""
    path = path or environments_file()
    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"cannot read environment definitions {path}: {exc}") from exc
    found = schema.problems(data, text)
    for name, table in data.get("environments", {}).items() if not found else ():
        kinds = [k for k in ("dockerfile", "image", "interpreter") if table.get(k)]
        line = schema.line_of(text, ["environments", name])
        if len(kinds) != 1:
            found.append(f"line {line}: environments.{name}: give exactly one of dockerfile, image, interpreter "
                         f"(found {', '.join(kinds) or 'none'})")
        elif kinds == ["dockerfile"] and not table.get("variants"):
            found.append(f"line {line}: environments.{name}: a dockerfile environment needs [variants.cpu] and/or [variants.gpu]")
    if found:
        raise UsageError(f"{path}: {len(found)} problem{'s' if len(found) > 1 else ''}; nothing was run:\n  "
                         + "\n  ".join(found))
    checked = cast(dict[str, schema.EnvironmentTable], data["environments"])  # its shape checked above
    return {
        name: EnvDef(name=name, family=tuple(table["family"]), dockerfile=_dockerfile(str(table.get("dockerfile", "")), path),
                     image=str(table.get("image", "")), interpreter=str(table.get("interpreter", "")),
                     python=str(table.get("python", "python")), python_version=str(table.get("python_version", "")),
                     user=str(table.get("user", "65534:65534")), default=bool(table.get("default", True)),
                     variants={v: _variant(t) for v, t in table.get("variants", {}).items()})
        for name, table in checked.items()
    }


def with_packages(env: EnvDef, packages: list[str]) -> EnvDef:
    """``env`` with ``packages`` (``--pip``: ``psutil``, ``psutil==5.9.4``) installed beside its pins in every
    variant, one the variant already pins keeping its pin (its image is another, by the definition's hash).
    An image or interpreter is used as it is: nothing is installed into it."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    def name(text: str) -> str:
        return str(canonicalize_name(Requirement(text).name))
    if env.kind != "build" or not packages:
        return env
    variants = {}
    for key, variant in env.variants.items():
        have = {name(p) for p in variant.packages}
        more = tuple(p for p in packages if name(p) not in have)
        variants[key] = replace(variant, packages=variant.packages + more) if more else variant
    return replace(env, variants=variants)


def adhoc_image(image: str, family: list[str]) -> EnvDef:
    """A bring-your-own-image environment from the command line (--image REF [--family F]).

    Without a family, the matrix detects it from inside the image (images.detect_families).
    """
    return EnvDef(name=image.rsplit("/", 1)[-1].replace(":", "-"), family=tuple(family), image=image, user="")


def modules_of(families: tuple[str, ...]) -> tuple[str, ...]:
    """The frameworks' import names an environment of these API families must import."""
    found = (frameworks.of_family(f) for f in families)
    return tuple(dict.fromkeys(f.name for f in found if f))


def adhoc_interpreter(interpreter: str, family: list[str]) -> EnvDef:
    """A process environment from the command line (--interpreter PY --family F)."""
    return EnvDef(name="host-" + Path(interpreter).name, family=tuple(family), interpreter=interpreter)


def distinct_names(envs: list[EnvDef]) -> list[EnvDef]:
    """Environments of one run under names of their own: two --interpreter venvs (…/jax/bin/python,
    …/torch/bin/python) are host-jax-python and host-torch-python, never one column host-python."""
    counts: dict[str, int] = {}
    for env in envs:
        counts[env.name] = counts.get(env.name, 0) + 1
    out, taken = [], set()
    for env in envs:
        name = env.name
        if counts[name] > 1 and env.interpreter:
            path = Path(env.interpreter)
            where = path.parent.parent.name if path.parent.name == "bin" else path.parent.name
            name = f"host-{where}-{path.name}" if where else name
        base, n = name, 2
        while name in taken:
            name, n = f"{base}-{n}", n + 1
        taken.add(name)
        out.append(replace(env, name=name) if name != env.name else env)
    return out


def select(envs: dict[str, EnvDef], names: list[str] | None) -> list[EnvDef]:
    """The environments named (every default one when none), or a UsageError naming the unknown one."""
    if not names:
        return [env for env in envs.values() if env.default]
    chosen = []
    for name in names:
        if name not in envs:
            raise UsageError(f"unknown environment {name!r}{suggest(name, list(envs))}")
        chosen.append(envs[name])
    return chosen
