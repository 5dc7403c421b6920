"""Making each environment of a run ready: the backend that will run it, or why it cannot run here.

The backend kind of a run: ``docker`` when an engine answers (images built or checked, existing
images probed for their families), ``venv`` otherwise (a virtualenv per environment from the same
pins), or ``process`` (the environment's Python as found, no virtualenv). Environments that name an
interpreter always run through the process backend. An environment that cannot run here is
skipped with the reason and the fix; it never stops the others.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from harness.common import threads
from harness.common.errors import BaseUnavailable, BuildError, DockerUnavailable, HarnessError, UsageError
from harness.common.events import Event
from harness.definitions import config
from harness.environments import images, venv_cuda, venvs
from harness.measurement import gpu_access, subproc
from harness.measurement.backends.base import Backend
from harness.measurement.nvml import Nvml

BACKENDS = ("auto", "docker", "venv", "process")


@dataclass
class Prepared:
    kind: str
    reason: str
    envs: list[config.EnvDef]
    access: gpu_access.GpuAccess = field(default_factory=lambda: gpu_access.GpuAccess("none", "no container in this run"))
    backends: dict[str, Backend] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)  # could not be built or started: its cells' result
    fallback: dict[str, str] = field(default_factory=dict)  # in a virtualenv instead of its image, and why
    errors: dict[str, HarnessError] = field(default_factory=dict)  # the failures themselves
    seconds: dict[str, float] = field(default_factory=dict)  # making (or finding ready) each environment


def choose_backend(requested: str, envs: list[config.EnvDef]) -> tuple[str, str, Any]:
    """The backend kind, why, and a docker client when that kind is docker."""
    if requested not in BACKENDS:
        raise UsageError(f"unknown backend {requested!r} (known: {', '.join(BACKENDS)})")
    from harness.environments.docker_client import connect, engine_address

    if requested == "docker":
        return "docker", "asked for", connect()
    if requested in ("venv", "process"):
        return requested, "asked for", None
    if all(env.kind == "process" for env in envs):
        return "process", "every environment is a local interpreter", None
    try:
        return "docker", f"a Docker engine answers at {engine_address()}", connect()
    except DockerUnavailable:
        return "venv", f"no Docker engine answers at {engine_address()}: virtualenvs instead", None


def prepare(envs: list[config.EnvDef], variant: str, requested: str, gpu_mode: str | None, build: images.BuildOptions,
            venv_root: Path, nvml: Nvml, emit: Event, workers: int = 1, only: set[str] | None = None,
            notebook: bool = False) -> Prepared:
    """Each environment made ready, ``workers`` at a time; one that cannot be is skipped or failed.
    With ``only``, the others are left as they are: no cell of theirs runs (a resumed run's finished ones).
    ``notebook``: each backend also gets IPython for its Python (ipython_site.py)."""
    kind, reason, client = choose_backend(requested, envs)
    prepared = Prepared(kind, reason, list(envs))
    emit("backend", {"backend": kind, "reason": reason})
    if client is not None:
        prepared.access = gpu_access.for_run(client.info(), variant, nvml.available, gpu_mode)
    def one(index: int) -> None:
        env = prepared.envs[index]
        if only is not None and env.name not in only:
            return
        if env.unavailable:
            prepared.skipped[env.name] = env.unavailable
            emit("skipped", {"env": env.name, "reason": env.unavailable})
            return
        if env.pin and nvml.available:  # a release asked for on a GPU host: can it run on these GPUs at all?
            from harness.environments import gpu_fit  # here: its wheel readers (packaging) cost a plain repro nothing

            cannot, said = gpu_fit.judge(env, variant, nvml.gpus, build)
            for line in said:
                emit("gpu-code", {"env": env.name, "text": line})
            if cannot:
                prepared.skipped[env.name] = cannot
                emit("skipped", {"env": env.name, "reason": cannot})
                return
        no_image = env.variant(variant).no_image if env.kind == "build" and variant in env.variants else ""
        if kind == "docker" and no_image:  # its release has no CUDA base image: a virtualenv of its Python can
            if requested == "auto":
                _in_a_virtualenv(prepared, env, f"no image can be made ({no_image})", None, variant, build, venv_root,
                                 emit)
            else:
                prepared.skipped[env.name] = f"no image can be made ({no_image}); --backend venv runs it"
                emit("skipped", {"env": env.name, "reason": prepared.skipped[env.name]})
            return
        began = time.monotonic()
        try:  # one environment's failure is its own result: the others still run
            if client is not None:
                env = prepared.envs[index] = _probe(client, env, variant, build, emit)
            prepared.backends[env.name] = backend_for(env, kind, variant, client, prepared.access, build, venv_root, emit)
            prepared.seconds[env.name] = round(time.monotonic() - began, 1)
        except venvs.EnvSkipped as exc:
            prepared.skipped[env.name] = str(exc)
            emit("skipped", {"env": env.name, "reason": str(exc)})
        except BaseUnavailable as exc:
            if requested != "auto":  # docker asked for: its failure is the answer
                prepared.failed[env.name], prepared.errors[env.name] = exc.message, exc
                return
            _in_a_virtualenv(prepared, env, exc.message, exc, variant, build, venv_root, emit)
            prepared.seconds[env.name] = round(time.monotonic() - began, 1)
        except (BuildError, UsageError) as exc:
            prepared.failed[env.name] = exc.message + (f"\n{exc.detail}" if exc.detail else "")
            prepared.errors[env.name] = exc

    # Several at once: a build or an install mostly waits on the network, the disk or Docker.
    threads.run_each(range(len(prepared.envs)), one, workers, on_interrupt=subproc.stop_running)
    if client is not None and len(prepared.fallback) == len(prepared.backends):  # every one in a virtualenv
        prepared.access = gpu_access.GpuAccess("none", "no container in this run")
    if notebook:
        for name in sorted(prepared.backends):
            _give_ipython(prepared, name, build, emit)
    return prepared


def _give_ipython(prepared: Prepared, name: str, build: images.BuildOptions, emit: Event) -> None:
    """IPython for the environment's Python, from the cache or installed there (one per Python);
    an environment that cannot have it fails, with the reason, and the others run."""
    from harness.environments import ipython_site

    backend = prepared.backends[name]
    python = backend.python_version()
    try:
        if python is None:
            raise BuildError(f"its Python did not say its version ({backend.describe().get('interpreter') or name}): "
                             "a notebook needs IPython made for that Python")
        folder, reused = ipython_site.ensure(python, build)
    except BuildError as exc:
        del prepared.backends[name]
        prepared.failed[name], prepared.errors[name] = exc.message, exc
        emit("failed", {"env": name, "reason": exc.message})
        return
    backend.ipython = folder
    emit("ipython", {"env": name, "python": python, "folder": str(folder), "reused": reused})


def _in_a_virtualenv(prepared: Prepared, env: config.EnvDef, why: str, base: BaseUnavailable | None, variant: str,
                     build: images.BuildOptions, venv_root: Path, emit: Event) -> None:
    """The backend chosen by itself (auto) cannot build ``env``'s image (no registry, no base, no CUDA
    base for its Python): the same pins in a virtualenv, as without Docker, said in one line (one for
    all whose ``base`` is missing for one cause); skipped with both reasons when that cannot be made
    either (its Python is not on this host)."""
    reason = f"{why}: run in a virtualenv instead"
    emit("fallback", {"env": env.name, "reason": reason, **({"base": base.base, "cause": base.cause} if base else {})})
    try:
        prepared.backends[env.name] = backend_for(env, "venv", variant, None, prepared.access, build, venv_root, emit)
        prepared.fallback[env.name] = reason
    except venvs.EnvSkipped as exc:
        prepared.skipped[env.name] = f"{why}, and {exc}"
        emit("skipped", {"env": env.name, "reason": prepared.skipped[env.name]})


def _probe(client: Any, env: config.EnvDef, variant: str, build: images.BuildOptions, emit: Event) -> config.EnvDef:
    """An existing image is made ready (pulled when asked) and, without a declared family, probed."""
    if env.kind != "image":
        return env
    ready_image(client, env, variant, build, emit)
    if env.family:
        return env
    families = images.detect_families(client, env.image, env.python)
    emit("detected", {"env": env.name, "families": list(families)})
    return replace(env, family=families)


def ready_image(client: Any, env: config.EnvDef, variant: str, build: images.BuildOptions, emit: Event) -> None:
    import docker.errors

    if env.kind == "build":
        if not images.image_current(client, env, variant, build):
            if build.registry and images.pull_current(client, env, variant, build.registry):
                emit("build", {"env": env.name, "tag": f"{env.image_tag(variant)} pulled from {build.registry}"})
                return
            images.base_id(client, config.mirrored(env.variant(variant).base))  # no base: said once, no "building" line
            emit("build", {"env": env.name, "tag": env.image_tag(variant)})
            images.build(client, env, variant, build, lambda text: emit("build-log", {"text": text}))
        return
    if build.pull:
        emit("build", {"env": env.name, "tag": f"pull {env.image}"})
        client.images.pull(env.image)
    try:
        client.images.get(env.image)
    except docker.errors.ImageNotFound as exc:
        raise UsageError(f"image {env.image!r} is not on this host: `docker pull {env.image}`, or pass --pull") from exc


def backend_for(env: config.EnvDef, kind: str, variant: str, client: Any, access: gpu_access.GpuAccess,
                 build: images.BuildOptions, venv_root: Path, emit: Event) -> Backend:
    from harness.measurement.backends.process import ProcessBackend

    if env.kind == "process":  # a Python given as it is (perhaps a Python 2 virtualenv): asked its version once
        given = ProcessBackend(python=env.interpreter)
        given.site = (given.python_version() or "").startswith("2")
        return given
    if kind == "docker":
        from harness.measurement.backends.docker import DockerBackend

        if env.kind == "build":
            ready_image(client, env, variant, build, emit)
        return DockerBackend(client=client, image=env.image_tag(variant), python=env.python, user=env.user, access=access)
    if env.kind == "image":
        raise venvs.EnvSkipped(f"{env.image} is an image: it needs a Docker engine")
    if kind == "process":
        found = venvs.python_of(env)
        if found is None:
            raise venvs.EnvSkipped(venvs.not_found(env))
        return ProcessBackend(python=found[0])
    python, reused = venvs.ensure(env, variant, venv_root, build, lambda text: emit("build-log", {"text": text}))
    emit("venv", {"env": env.name, "python": python, "reused": reused})
    pins = env.variants.get(variant)
    return ProcessBackend(python=python, name="venv", site=venvs.runs_python2(python), sources=venvs.sources_of(python),
                          library_path=venv_cuda.library_path(env, variant, python),
                          cuda_path=venv_cuda.cuda_path(env, variant, python),
                          cuda_aliases=pins.venv_aliases if pins else (),
                          cuda_libraries=pins.venv_libraries if pins else ())
