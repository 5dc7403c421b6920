"""Building environment images through the docker SDK, with layer caching.

The build context is assembled in a temporary folder: the env's Dockerfile, the shared build
script (images/common/) with the env's pins from matrix/environments.toml as build/pins.env, and
a wheelhouse (empty unless one is handed over); only the base arrives as a build arg. An image
is current when its tag exists and its labels carry both the definition hash (Dockerfile, pins)
and the build identity (what else decides what pip installs: the index it could reach, its
options, the wheels handed over: those of the wheelhouse its pins can use); otherwise it is
(re)built. Without the identity a torch pin
built while PyTorch's CPU index was unreachable (PyPI's CUDA build, 5 GB) would pass for the CPU
build under the same definition.
"""
from __future__ import annotations

import functools
import hashlib
import json
import shlex
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness import frameworks
from harness.common.errors import BaseUnavailable, BuildError
from harness.definitions.config import EnvDef, data_root

HASH_LABEL = "harness.definition-hash"
IDENTITY_LABEL = "harness.build-identity"
BASE_LABEL = "harness.base"  # the base image the build started from (a stand-in shows here by its name and id)
BuildProgress = Callable[[str], None]


@dataclass(frozen=True, kw_only=True)
class BuildOptions:
    wheelhouse: Path | None = None
    offline: bool = False  # air-gapped: the wheelhouse only, no index at all
    network_mode: str | None = None
    pull: bool = False
    registry: str | None = None  # REGISTRY[/PREFIX]: pull an environment's image from there before building it
    check_only: bool = False  # build up to pip's resolution of the pins (no install): a broken Dockerfile or pin fails


@functools.cache  # one answer per run: every environment on the same index asks
def index_reachable(url: str, timeout: float = 5.0) -> bool:
    """Whether a package index answers from here (then it answers from a build container too)."""
    import urllib.error  # here: urllib.request costs every command's start-up ~15 ms
    import urllib.request

    try:
        with urllib.request.urlopen(url.rstrip("/") + "/", timeout=timeout):
            return True
    except (urllib.error.URLError, OSError, ValueError):
        return False


@contextmanager
def build_context(env: EnvDef, settings: dict[str, str], handed: list[Path], repo: Path | None = None) -> Iterator[Path]:
    """The env's Dockerfile, images/common/ and the env folder's other files as build/, the pins as
    build/pins.env and the wheels handed over as build/wheelhouse."""
    repo = repo or data_root()
    with tempfile.TemporaryDirectory(prefix=f"harness-build-{env.name}-") as tmp:
        ctx = Path(tmp)
        shutil.copy2(repo / env.dockerfile / "Dockerfile", ctx / "Dockerfile")
        shutil.copytree(repo / "images" / "common", ctx / "build")
        for extra in sorted((repo / env.dockerfile).iterdir()):  # the env's own build steps beside its Dockerfile
            if extra.is_file() and extra.name != "Dockerfile":
                shutil.copy2(extra, ctx / "build" / extra.name)
        (ctx / "build" / "pins.env").write_text(
            "".join(f"{key}={shlex.quote(value)}\n" for key, value in sorted(settings.items()) if key != "BASE"))
        wheels = ctx / "build" / "wheelhouse"
        wheels.mkdir()
        (wheels / ".keep").write_text("")
        for wheel in handed:
            shutil.copy2(wheel, wheels / wheel.name)
        yield ctx


def handed_over(settings: dict[str, str], wheelhouse: Path | None) -> list[Path]:
    """The wheels of ``wheelhouse`` the build's pins can use (wheel_selection: not the others' gigabytes)."""
    from harness.environments.wheel_selection import wheels_for  # here: packaging, only for a wheelhouse

    wanted = settings["PIP_PACKAGES"].split() + settings.get("STAGE_PACKAGES", "").split()
    return wheels_for(wanted, wheelhouse) if wheelhouse is not None else []


def detect_families(client: Any, image: str, python: str = "python") -> tuple[str, ...]:
    """The API families of an existing image, found by importing the frameworks inside it."""
    import json

    from harness.measurement.backends.base import AGENT_DIR

    try:
        output = client.containers.run(image, [python, "/opt/harness/agent/probe.py", *frameworks.names()], remove=True,
                                       network_mode="none",
                                       volumes={str(AGENT_DIR): {"bind": "/opt/harness/agent", "mode": "ro"}})
        found = json.loads(output.decode().strip().splitlines()[-1])["frameworks"]
    except Exception as exc:
        raise BuildError(f"could not detect the frameworks in {image} ({str(exc).splitlines()[0][:160]}); "
                         "name them with --family") from exc
    families = frameworks.families_of(found)
    if not families:
        raise BuildError(f"{image} imports none of {frameworks.listed()}; name its family with --family")
    return families


def build_identity(env: EnvDef, variant: str, options: BuildOptions, handed: list[Path] | None = None) -> str:
    """What decides the image's content beside its definition: the build's effective arguments
    (the index pip can reach, offline or not) and the wheels handed over, by name and size (``handed``:
    those already chosen for this build)."""
    args = build_args(env, variant, BuildOptions(wheelhouse=options.wheelhouse, offline=options.offline), lambda _: None)
    digest = hashlib.sha256(json.dumps({"definition": env.definition_hash(variant), **args}, sort_keys=True).encode())
    for wheel in handed_over(args, options.wheelhouse) if handed is None else handed:
        digest.update(f"{wheel.name}:{wheel.stat().st_size}".encode())
    return digest.hexdigest()[:16]


def image_current(client: Any, env: EnvDef, variant: str, options: BuildOptions | None = None) -> bool:
    """The image exists for this definition and, given build ``options``, as these options would
    build it (without them, however it was built: doctor, run)."""
    import docker.errors

    try:
        labels = client.images.get(env.image_tag(variant)).labels or {}
    except docker.errors.ImageNotFound:
        return False
    if labels.get(HASH_LABEL) != env.definition_hash(variant):
        return False
    return options is None or labels.get(IDENTITY_LABEL) == build_identity(env, variant, options)


def build_args(env: EnvDef, variant: str, options: BuildOptions, note: BuildProgress) -> dict[str, str]:
    args = env.build_args(variant)
    if options.offline:
        args["PIP_INDEX"] = ""
        args["PIP_OPTIONS"] = (args["PIP_OPTIONS"] + " --no-index").strip()
    elif args["PIP_INDEX"] and not index_reachable(args["PIP_INDEX"]):
        note(f"{env.name}: package index {args['PIP_INDEX']} unreachable; using the wheelhouse and PyPI")
        args["PIP_INDEX"] = ""
    if options.check_only:
        args["HARNESS_CHECK_ONLY"] = "1"
    return args


def build(client: Any, env: EnvDef, variant: str, options: BuildOptions, note: BuildProgress) -> str:
    """Build ``env``'s ``variant`` image; returns its id. BuildError with the failing step's log.

    With ``check_only`` the build stops once pip has resolved the pins; that image is tagged
    ``...-check``, carries no definition hash (it never counts as built) and is removed.
    """
    import docker.errors

    tag = env.image_tag(variant) + ("-check" if options.check_only else "")
    args = build_args(env, variant, options, note)
    handed = handed_over(args, options.wheelhouse)  # once: the identity names them, the context copies them
    labels = {"harness.env": env.name, "harness.variant": variant, BASE_LABEL: args["BASE"],
              **({} if options.check_only else {HASH_LABEL: env.definition_hash(variant),
                                                IDENTITY_LABEL: build_identity(env, variant, options, handed)})}
    labels[BASE_LABEL + "-id"] = base_id(client, args["BASE"])  # a stand-in made under the real name shows by its id
    log: list[str] = []
    with build_context(env, args, handed) as ctx:
        try:
            stream = client.api.build(
                path=str(ctx), tag=tag, buildargs={"BASE": args["BASE"]}, decode=True, rm=True, forcerm=True,
                pull=options.pull, labels=labels, network_mode=options.network_mode,
            )
            failure = ""
            for chunk in stream:  # read to the end even after an error: the engine's connection is released
                if "stream" in chunk:
                    text = str(chunk["stream"]).rstrip()
                    if text:
                        log.append(text)
                        if text.startswith("Step "):
                            note(f"{env.name}:{variant} {text}")
                if "error" in chunk and not failure:
                    failure = str(chunk["error"]).strip().splitlines()[0]
            if failure:
                raise BuildError(f"building {tag} on {args['BASE']} failed: {failure} (the build log's tail follows)",
                                 detail="\n".join(log[-15:]))
        except docker.errors.APIError as exc:
            raise BuildError(f"building {tag} failed: {exc.explanation or exc} (is the base image {args['BASE']} "
                             "available? `docker pull` it, or build a stand-in)") from exc
    image = client.images.get(tag)
    if options.check_only:
        client.images.remove(image.id, force=True)
    else:
        image.tag(*env.alias_tag(variant).rsplit(":", 1))
    return str(image.id)


def base_id(client: Any, base: str) -> str:
    """The id of ``base`` on this host, pulled first when it is not there; BaseUnavailable in one line
    when it cannot be (no registry answers, or none has it): no build is tried that fails on it."""
    import docker.errors

    try:
        return str(client.images.get(base).id)
    except docker.errors.ImageNotFound:
        pass
    try:
        return str(client.images.pull(base).id)
    except docker.errors.APIError as exc:
        cause = str(exc.explanation or exc).strip().splitlines()[0][:160]
        raise BaseUnavailable(base, cause) from exc


def size_of(client: Any, tag: str) -> int:
    """An image's size on disk in bytes (its layers, the base's included)."""
    return int(client.images.get(tag).attrs.get("Size") or 0)


def registry_ref(env: EnvDef, variant: str, registry: str) -> tuple[str, str]:
    """(repository, tag) of ``env``'s image in ``registry``: REGISTRY/gpu-cleanup-matrix/NAME, VARIANT-HASH (one
    tag per definition, as on the engine)."""
    repository, tag = env.image_tag(variant).rsplit(":", 1)
    return f"{registry.rstrip('/')}/{repository}", tag


def push(client: Any, env: EnvDef, variant: str, registry: str) -> str:
    """Push the built image to ``registry`` (for cluster nodes to pull); returns the reference."""
    repository, tag = registry_ref(env, variant, registry)
    client.images.get(env.image_tag(variant)).tag(repository, tag=tag)
    for chunk in client.api.push(repository, tag=tag, stream=True, decode=True):
        if "error" in chunk:
            raise BuildError(f"pushing {repository}:{tag} failed: {str(chunk['error']).strip()} "
                             "(is the registry running, and is it allowed as insecure when it is plain HTTP?)")
    return f"{repository}:{tag}"


def pull_current(client: Any, env: EnvDef, variant: str, registry: str) -> bool:
    """Pull ``env``'s image from ``registry`` and tag it locally; True when what came is current
    (its definition-hash label matches), False when the registry has none or an outdated one."""
    import docker.errors

    repository, tag = registry_ref(env, variant, registry)
    try:
        image = client.images.pull(repository, tag=tag)
    except docker.errors.APIError:
        return False
    if (image.labels or {}).get(HASH_LABEL) != env.definition_hash(variant):
        return False
    for local in (env.image_tag(variant), env.alias_tag(variant)):
        image.tag(*local.rsplit(":", 1))
    return True
