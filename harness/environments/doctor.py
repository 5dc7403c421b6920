"""`doctor`: what this host can run, one line per check, each with the fix when it fails."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.common.commands import command
from harness.common.errors import HarnessError
from harness.common.units import human_bytes
from harness.definitions import config
from harness.environments import cdi, images, pkgindex
from harness.measurement import gpu_access
from harness.measurement.nvml import Nvml


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool | None  # None: informational, neither good nor bad
    detail: str
    fix: str = ""


def run_checks(nvml: Nvml) -> list[Check]:
    checks = []
    envs = config.load_environments().values()
    if nvml.available:
        checks.append(Check("NVIDIA driver (NVML)", True, f"driver {nvml.driver}, NVML {nvml.nvml_version}"))
        for gpu in nvml.gpus:
            mig = {True: ", MIG on: per-process memory may be n/a", False: "", None: ""}[gpu.mig_mode]
            checks.append(Check(f"GPU {gpu.index}", None, f"{gpu.name}, {human_bytes(gpu.total_bytes)}{mig}"))
        checks += old_cuda_notes(envs, nvml.gpus)
    else:
        checks.append(Check("NVIDIA driver (NVML)", False, nvml.reason,
                            "install the NVIDIA driver for GPU columns; without it the matrix runs the cpu variant, RSS only"))
    client: Any = None
    try:
        from harness.environments.docker_client import connect, engine_address

        client = connect(timeout=10)
        version = client.version().get("Version", "?")
        checks.append(Check("Docker engine", True, f"{engine_address()} answers, version {version}"))
    except HarnessError as exc:
        checks.append(Check("Docker engine", False, exc.message.split(";")[0],
                            "start Docker (`sudo systemctl start docker`), or use --backend process"))
    checks.append(venv_cache_check())
    checks.append(reach_check("package index", pkgindex.DEFAULT_INDEX + "/pip/",
                              "environments made from a pin (--with, sweep, bisect) need it: --index-url a mirror, "
                              "or --wheelhouse DIR --offline"))
    if client is not None:
        info = client.info()
        checks.append(gpu_mode_check(info, nvml.available))
        checks.append(disk_check("disk for images", str(info.get("DockerRootDir") or "/var/lib/docker")))
        variant = "gpu" if nvml.available else "cpu"
        missing = missing_bases(client, envs, variant)
        bases = base_checks(client, envs, variant, missing)
        checks += bases
        unbuildable = set(missing) if bases[0].ok is False else set()  # not here, and no registry to pull from
        for env in envs:
            if env.kind != "build" or variant not in env.variants:
                continue
            tag = env.image_tag(variant)
            current = images.image_current(client, env, variant)
            if not current and config.mirrored(env.variants[variant].base) in unbuildable:
                checks.append(Check(f"image {tag}", None, "missing, and its base cannot be had here (above): the matrix "
                                    f"runs {env.name} in a virtualenv of the same pins"))
                continue
            checks.append(Check(f"image {tag}", current, "built and current" if current else "missing or out of date",
                                "" if current else f"{command('images')} ({command('matrix')} builds it too)"))
    return checks


REGISTRY = "https://registry-1.docker.io/v2/"  # Docker Hub's registry API: any answer (401 too) is an answer
IMAGES_NEED = 10 << 30  # the cpu images take about 7 GB, the gpu ones more


def reachable(url: str, timeout: float = 5.0) -> str | None:
    """None when ``url`` answers at all (an HTTP error is an answer), else why not, in a few words."""
    import urllib.error
    import urllib.request

    try:
        urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=timeout).close()
    except urllib.error.HTTPError as answer:  # an answer all the same (401: a registry wants a token)
        answer.close()
        return None
    except (urllib.error.URLError, OSError) as exc:
        return str(getattr(exc, "reason", exc))[:120]
    return None


def reach_check(name: str, url: str, fix: str) -> Check:
    why = reachable(url)
    return Check(name, why is None, f"{url} answers" if why is None else f"{url} does not answer ({why})",
                 "" if why is None else fix)


def venv_cache_check() -> Check:
    """Where the venv backend keeps its virtualenvs, one folder for every run of this user, and the room there."""
    import shutil

    from harness.environments.tool_sites import venv_cache

    where = venv_cache()
    existing = next((p for p in (where, *where.parents) if p.exists()), Path("/"))
    free = shutil.disk_usage(existing).free
    return Check("virtualenvs", None, f"{where} ({human_bytes(free)} free there; --venv-dir or XDG_CACHE_HOME moves it)")


def disk_check(name: str, where: str, need: int = IMAGES_NEED) -> Check:
    import shutil

    try:
        free = shutil.disk_usage(where).free
    except OSError:
        return Check(name, None, f"{where}: cannot be read from here")
    fix = f"free at least {human_bytes(need)} there (`docker system prune`), or use --backend venv"
    return Check(name, free >= need, f"{human_bytes(free)} free in {where}", "" if free >= need else fix)


def missing_bases(client: Any, envs: Iterable[config.EnvDef], variant: str) -> list[str]:
    """The bases the environments' builds start from (through HARNESS_BASE_MIRROR) that are not on this host."""
    import docker.errors

    missing = []
    for base in sorted({config.mirrored(env.variants[variant].base) for env in envs
                        if env.kind == "build" and variant in env.variants}):
        try:
            client.images.get(base)
        except docker.errors.ImageNotFound:
            missing.append(base)
    return missing


def base_checks(client: Any, envs: Iterable[config.EnvDef], variant: str, missing: list[str] | None = None) -> list[Check]:
    """The base images the environments build on: on this host, or a registry that can give them.
    Without either, the matrix runs those environments in virtualenvs of the same pins instead."""
    envs = list(envs)
    missing = missing_bases(client, envs, variant) if missing is None else missing
    if not missing:
        return [Check("base images", True, "every environment's base is on this host")]
    why = reachable(REGISTRY)
    if why is None:
        return [Check("base images", True, f"{len(missing)} not on this host, pulled when first built (the registry answers)")]
    return [Check("base images", False, f"{', '.join(missing)} not on this host, and the registry does not answer ({why})",
                  "the matrix runs those environments in virtualenvs of the same pins instead; to have the images, "
                  "`docker load` the bases from a machine that has them, or name a registry mirror that has them in "
                  f"{config.BASE_MIRROR_VARIABLE} (its prefix goes before every base's name)")]


def gpu_mode_check(info: dict[str, Any], nvml_available: bool, **host: Any) -> Check:
    """The mode a run will use and why, and the one step that would give a better one.

    Better means more standard: ``gpus`` (the toolkit registered with the engine) > ``cdi`` (a spec the
    engine reads) > ``devices`` (nodes and libraries passed by this tool) > ``none``.
    """
    access = gpu_access.choose(info, nvml_available, **host)  # host: cdi_dirs, dev, ldconfig_output, search (tests)
    detail = f"a run will use mode {access.mode}: {access.reason}"
    if access.mode == "cdi" and gpu_access.engine_version(info) >= gpu_access.GPUS_THROUGH_CDI:  # cdi: a driver
        return Check("container GPU access", True, detail, f"for the standard gpus mode (`--gpus all`): the NVIDIA "
                     f"Container Toolkit's {gpu_access.CDI_HOOK} on dockerd's PATH, then restart Docker")
    if not nvml_available or access.mode in ("gpus", "cdi"):
        return Check("container GPU access", None if not nvml_available else True, detail)
    return Check("container GPU access", access.mode != "none", detail, _better_mode(info))


def _better_mode(info: dict[str, Any]) -> str:
    version = str(info.get("ServerVersion", "0"))
    major = int(version.split(".")[0]) if version.split(".")[0].isdigit() else 0
    if info.get("CDISpecDirs"):
        generate = "nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml" if cdi.have_tool() else "sudo harness cdi-spec"
        return f"for the standard cdi mode: `{generate}` (a spec for this driver in /etc/cdi; nothing to restart)"
    if major >= 25:
        return ("for the cdi mode: turn CDI on ({\"features\": {\"cdi\": true}} in /etc/docker/daemon.json, restart "
                "Docker), then `sudo harness cdi-spec`")
    return ("for the gpus mode: install the NVIDIA Container Toolkit and `nvidia-ctk runtime configure --runtime=docker`, "
            "restart Docker; or Docker >= 25 with CDI on and `sudo harness cdi-spec`")


# The newest compute capability CUDA 9.0 (TF 1.x's) has kernels for: Volta
CUDA_9_KERNELS_UP_TO = (7, 0)


def old_cuda_notes(envs: Iterable[config.EnvDef], gpus: Iterable[Any]) -> list[Check]:
    """What a GPU newer than an environment's CUDA needs: said before a run, not found in one."""
    notes = []
    for env in envs:
        base = env.variants["gpu"].base if "gpu" in env.variants else ""
        if env.kind != "build" or not base.startswith("tensorflow/tensorflow:1."):
            continue
        for gpu in gpus:
            capability = gpu.compute_capability
            if capability is None or capability <= CUDA_9_KERNELS_UP_TO:
                continue
            text = (f"{gpu.name} (compute capability {capability[0]}.{capability[1]}) is newer than {env.name}'s CUDA 9.0: "
                    "the driver compiles its PTX at the first start (minutes; the GPU containers share one cache after)")
            cublas = next((p for p in env.variants["gpu"].stage_packages if "cublas" in p.lower()), "")
            if capability >= (9, 0) and cublas:
                text += ("; on Hopper CUDA 9.0's cuBLAS has no kernels for large GEMMs: its image puts "
                         f"{cublas} in its place (stage_packages; needs a driver >= 450)")
            elif capability >= (9, 0):
                text += ("; on Hopper its base needs a cuBLAS with Hopper kernels as libcublas.so.9.0 (9.0's has none "
                         "for large GEMMs; images/tf1.8/hopper_cublas.sh shows how)")
            notes.append(Check(f"{env.name} on GPU {gpu.index}", None, text))
    return notes
