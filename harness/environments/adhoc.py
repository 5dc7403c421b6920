"""Environments made on demand from a pin (``--with tensorflow==2.13.0``), like the pinned ones.

A pin becomes an ordinary environment definition (config.EnvDef): the family from the package,
a Python the release has Linux wheels for (read from the package index, see pkgindex.py), the
companion pins that release needs where its own metadata falls short, and a base per variant.
It is then built as an image (images/adhoc) or a virtualenv exactly like a pinned environment and
cached by the same definition hash. Several pins joined by commas make one environment
(``tensorflow==2.13.0,keras==2.13.1``). A release that cannot run here (no wheel for Linux
x86_64, no CUDA base for it) becomes an environment marked unavailable, with the reason: its
cells are recorded as skipped, never silently dropped.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

from harness import frameworks
from harness.common.errors import EnvironmentNotFound, UsageError
from harness.definitions.config import VENV_ONLY, EnvDef, VariantDef, modules_of
from harness.environments import pins, pkgindex
from harness.frameworks.framework import GpuBuild

DOCKERFILE = "images/adhoc"
PREFERRED_PYTHON = "3.11"  # the pinned environments' Python: where a release allows it, keep to it

CUDA12_BASE = "nvidia/cuda:12.8.1-runtime-ubuntu{ubuntu}"
UBUNTU_PYTHON = {"24.04": "3.12", "22.04": "3.10", "20.04": "3.8", "18.04": "3.6"}


class Unavailable(Exception):
    """This pin cannot become an environment here; the message says why."""


class NoCudaBase(Unavailable):
    """No CUDA base image has a Python the release has wheels for: an image cannot be made, a virtualenv can."""


@dataclass(frozen=True)
class Plan:
    python: str
    base: str
    packages: tuple[str, ...]
    index_url: str = ""
    pip_options: tuple[str, ...] = ()
    no_image: str = ""  # why no image can be made (no CUDA base has a Python it has wheels for)
    others: tuple[str, ...] = ()  # the other Pythons it has wheels for, nearest first: a virtualenv may use one
    venv_cuda: tuple[str, ...] = ()  # CUDA wheels a virtualenv of it needs beside its pins (its base has them)
    venv_aliases: tuple[str, ...] = ()  # sonames it loads that those wheels ship under a newer one
    venv_cuda_path: str = ""  # the folder of those wheels its cells' CUDA_PATH names (their CUDA headers)
    venv_libraries: tuple[str, ...] = ()  # CUDA libraries no wheel ships as such, fetched (environments/venv_libs)


def _venv_only(source: Any) -> dict[str, Any]:
    """What a virtualenv alone is given (config.VENV_ONLY), as the registry's GPU build or a plan names it: one
    list, so a field added there reaches the plan and the variant without being spelt again."""
    return {name: getattr(source, name) for name in VENV_ONLY}


def pinned(req: Requirement) -> Version:
    return Version(next(iter(req.specifier)).version)


def kind_of(name: str) -> str:
    """The framework a distribution installs ('tensorflow', 'torch', ...), or ''."""
    found = frameworks.of_distribution(str(canonicalize_name(name)))
    return found.name if found else ""


def families_of(name: str, version: Version) -> tuple[str, ...]:
    found = frameworks.named(kind_of(name))
    return found.families_for(str(version)) if found else ()


def companions(kind: str, version: Version, given: set[str]) -> list[str]:
    """Pins a release needs that its own metadata does not state (it predates the breaking
    release), from the framework's registry entry, except for packages the user pinned."""
    found = frameworks.named(kind)
    out: list[str] = []
    for spec, extra in found.companions if found else ():
        if SpecifierSet(spec).contains(version, prereleases=True):
            out += [pin for pin in extra if canonicalize_name(Requirement(pin).name) not in given]
    return out


def _distance_from(python: str) -> Callable[[str], tuple[int, int]]:
    def distance(py: str) -> tuple[int, int]:
        value, target = (int(v.split(".")[0]) * 100 + int(v.split(".")[1]) for v in (py, python))
        return abs(value - target), -value
    return distance


def choose_python(pythons: tuple[str, ...], preferred: str = "") -> str:
    """The preferred Python (``preferred``: a bug report's, else the pinned environments') when the release has
    wheels for it, else the nearest (newer on a tie)."""
    return min(pythons, key=_distance_from(".".join(preferred.split(".")[:2]) or PREFERRED_PYTHON))


def nearest(pythons: tuple[str, ...], chosen: str) -> tuple[str, ...]:
    """The Pythons other than ``chosen``, nearest to it first (newer on a tie): a virtualenv's next choices
    on a host without ``chosen``."""
    return tuple(sorted((py for py in pythons if py != chosen), key=_distance_from(chosen)))


def cpu_base(python: str) -> str:
    if python == "2.7":
        return "python:2.7-slim"
    if python == "3.5":
        return "python:3.5-slim"
    suite = "bookworm" if Version(python) >= Version("3.10") else "bullseye"
    return f"python:{python}-slim-{suite}"


def _ubuntu_for(pythons: tuple[str, ...], what: str) -> str:
    for ubuntu, python in UBUNTU_PYTHON.items():
        if python in pythons:
            return ubuntu
    raise NoCudaBase(f"{what} has no wheel for the Python of any CUDA base ({', '.join(UBUNTU_PYTHON.values())})")


def gpu_build(main: Requirement, version: Version) -> GpuBuild:
    """How the framework's registry entry builds this release for a GPU (Framework.gpu_builds)."""
    found = frameworks.named(kind_of(main.name))
    return found.gpu_build(version, main.name) if found else GpuBuild("")


def gpu_plan(main: Requirement, version: Version, pythons: tuple[str, ...], packages: list[str]) -> Plan:
    """The CUDA base, Python and packages of the gpu variant, as the framework's registry entry builds this
    release (Framework.gpu_builds): its own base and Python, a CUDA base of the Ubuntu whose Python it has
    wheels for, the extra that installs its CUDA build, or why none can be made here."""
    kind, what = kind_of(main.name), f"{main.name} {version}"
    found = frameworks.named(kind)
    build = gpu_build(main, version)
    own = found is not None and str(canonicalize_name(main.name)) == found.distributions[0] and not main.extras
    if build.unavailable and own:
        raise Unavailable(f"{what}: {build.unavailable}")
    if "{version}" in build.base:  # the framework's own image of that release, with its own Python
        return Plan(build.python, build.base.format(version=version), tuple(packages))
    if build.base and "{ubuntu}" not in build.base:  # a CUDA base of one Ubuntu: the release needs its Python
        ubuntu = build.base.rsplit("ubuntu", 1)[1]
        if UBUNTU_PYTHON[ubuntu] not in pythons:
            raise NoCudaBase(f"{what} has no wheel for Python {UBUNTU_PYTHON[ubuntu]}, the Python of its CUDA base "
                             f"({build.base})")
    else:
        ubuntu = _ubuntu_for(pythons, what)
    mine = build.base and (not build.ubuntus or ubuntu in build.ubuntus)
    base = (build.base if mine else CUDA12_BASE).format(ubuntu=ubuntu)
    if build.extra and own:
        packages = [f"{main.name}[{build.extra}]=={version}", *packages[1:]]
    options = ("--find-links", build.find_links) if build.find_links and own else ()
    return Plan(UBUNTU_PYTHON[ubuntu], base, tuple(packages), pip_options=options)


def _framework_pin(reqs: list[Requirement]) -> Requirement:
    """The framework among one ``--with``'s pins, wherever it was written (else the first pin)."""
    return next((r for r in reqs if kind_of(r.name)), reqs[0])


def plan(reqs: list[Requirement], variant: str, index_url: str = pkgindex.DEFAULT_INDEX, python: str = "") -> Plan:
    """What the pins of one ``--with`` build for ``variant``; Unavailable when it cannot be built here."""
    main = _framework_pin(reqs)
    reqs = [main, *(r for r in reqs if r is not main)]
    version, kind = pinned(main), kind_of(main.name)
    entry = frameworks.named(kind)
    own_index = entry.local_index if entry else ""
    if own_index and version.local:  # torch==1.7.1+cu110: the framework's own index for that build
        index_url = own_index.format(local=version.local)
    try:  # no index answers here: this release cannot be made, the run's other environments still run
        found = pkgindex.releases(main.name, index_url)
    except EnvironmentNotFound as exc:
        raise Unavailable(exc.message) from exc
    if version not in found:  # a typo, not this host's limit: said before anything is made, and nothing runs
        final = sorted(v for v in found if not v.is_prerelease)
        near = [v for v in final if v.major == version.major][-3:] or final[-3:]
        series = f"its {version.major}.x" if near and near[0].major == version.major else "the newest"
        raise UsageError(f"--with {main}: {main.name} has no release {version} on {index_url}"
                         + (f"; {series}: {', '.join(map(str, near))}" if near else "")
                         + f" (--with {main.name}==VERSION)")
    pythons = found[version].pythons()
    given = {str(canonicalize_name(r.name)) for r in reqs}
    paired = entry.released_with if entry else ""
    libs = pkgindex.releases(paired, index_url) if paired and canonicalize_name(main.name) == kind else {}
    if not pythons and found[version].sdist and libs:  # jax 0.4.1 is a source archive (pure Python)
        given_lib = next((pinned(r) for r in reqs if str(canonicalize_name(r.name)) == paired), None)
        if given_lib is not None and given_lib not in libs:  # jax 0.2.9 with the jaxlib 0.1.59 stated beside it
            raise Unavailable(f"{paired} {given_lib}, pinned beside {main.name} {version}, is not on {index_url} (its "
                              f"oldest there: {min(libs)}): no build of it can be installed here")
        if given_lib is None and version not in libs:
            raise Unavailable(f"{main.name} {version} is a source archive and needs {paired} {version}, which "
                              f"{index_url} does not have (its oldest there: {min(libs)})")
        pythons = libs[given_lib or version].pythons()  # its jaxlib's Pythons
    if not pythons:
        where = "only a source archive" if found[version].sdist else "no file for it"
        raise Unavailable(f"{main.name} {version} has no wheel for Linux x86_64 ({where})")
    extra = companions(kind, version, given)
    build = gpu_build(main, version) if variant == "gpu" else None
    if libs and paired not in given:
        if version in libs and libs[version].pythons():  # jax and jaxlib release together
            pythons = tuple(py for py in pythons if py in libs[version].pythons()) or pythons
            # a CUDA extra pins the jaxlib it was made with (jax[cuda12]==0.4.35 pins jaxlib 0.4.34): pinning
            # jaxlib==0.4.35 beside it makes the install impossible
            if not main.extras and not (build and build.extra):
                extra.append(f"{paired}=={version}")
    packages = [str(r) for r in reqs] + extra
    local = version.local
    index = index_url if own_index and local else ""
    if own_index and entry and entry.cpu_local and not local and variant == "cpu":
        index = own_index.format(local=entry.cpu_local)
    if build is not None:
        try:
            chosen = gpu_plan(main, version, pythons, packages)
        except NoCudaBase as exc:  # no image, but the release's own CUDA build runs in a virtualenv of its Python
            chosen = Plan(choose_python(pythons, python), "", tuple(packages), index, no_image=str(exc))
        return replace(chosen, index_url=index or chosen.index_url, others=nearest(pythons, chosen.python),
                       **_venv_only(build))
    python = choose_python(pythons, python)
    return Plan(python, cpu_base(python), tuple(packages), index, others=nearest(pythons, python))


def _refuse_near_misses(text: str, reqs: list[Requirement]) -> None:
    """``--with tensorflw==2.13.0`` names no framework and no library that loads one: a typo, said as one."""
    import difflib

    for req in reqs:
        name = str(canonicalize_name(req.name))
        known = [d for f in frameworks.all_frameworks() for d in f.distributions if "*" not in d]
        close = difflib.get_close_matches(name, known, n=1, cutoff=0.8)
        if close and not frameworks.loaded_by(name) and not frameworks.loaded_by(name.replace("-", "_")):
            fixed = text.replace(req.name, close[0], 1)
            raise UsageError(f"--with {text!r}: {req.name} is no framework this tool knows; did you mean {close[0]}? "
                             f"(--with '{fixed}')")


def environment(text: str, variant: str, fallback_families: tuple[str, ...] = (),
                index_url: str = pkgindex.DEFAULT_INDEX, python: str = "") -> EnvDef:
    """The environment ``--with text`` names, or one marked unavailable with the reason; ``python``: the
    Python to make it with where the release has wheels for it (a bug report's), else the nearest."""
    reqs = pins.parse(text)
    families: tuple[str, ...] = ()
    for req in reqs:
        families = families or families_of(req.name, pinned(req))
    if not families:  # a framework's name mistyped is not a library: say which one was meant
        _refuse_near_misses(text, reqs)
    if not families:  # no framework pinned: one the pinned library or the script needs must be
        loads = next((frameworks.loaded_by(n)[0] for n in (str(canonicalize_name(r.name)).replace("-", "_") for r in reqs)
                      if frameworks.loaded_by(n)), None)
        needed = loads or next(iter(modules_of(fallback_families)), None)
        if needed:
            raise UsageError(f"--with {text!r}: {reqs[0].name} {'loads' if loads else 'is not'} {needed}"
                             f"{'' if loads else ', which the script imports'}; pin that release too "
                             f"(--with '{text},{needed}==VERSION')")
    families = families or fallback_families
    if not families:
        raise UsageError(f"--with {text!r}: {reqs[0].name} is none of {frameworks.listed()}; "
                         "pin a framework too (--with 'torch==2.5.1,numpy==1.26.4')")
    name = ",".join(str(r) for r in reqs)
    try:
        chosen = plan(reqs, variant, index_url, python)
    except Unavailable as exc:
        return EnvDef(name=name, family=families, dockerfile=DOCKERFILE, default=False, unavailable=str(exc), pin=name)
    # a release that cannot import without CUDA's libraries (the registry's imports_without_cuda): its cpu image does
    # not try, and its cells say what it needs
    main = _framework_pin(reqs)
    entry = frameworks.named(kind_of(main.name))
    imports = () if variant == "cpu" and entry and not entry.imports_on_cpu(pinned(main)) else modules_of(families)
    return EnvDef(name=name, family=families, dockerfile=DOCKERFILE, python="python", python_version=chosen.python,
                  other_pythons=chosen.others, default=False, imports=imports, pin=name,
                  variants={variant: VariantDef(base=chosen.base, packages=chosen.packages, index_url=chosen.index_url,
                                                pip_options=chosen.pip_options, no_image=chosen.no_image,
                                                **_venv_only(chosen))})
