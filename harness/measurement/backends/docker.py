"""The docker backend: each cell in a fresh container of its environment's image.

Only this module (with images.py and docker_client.py) talks to the engine. A container is
owned: named ``gpu-cleanup-matrix-<uuid>``, labelled with run and cell ids, started with
``--network none`` and the agent, the scenario folder and the ack folder mounted read-only, run
as a non-root user where the env allows, and removed on every path out (normal end, timeout,
Ctrl-C, a crash of the harness through atexit). ``harness clean`` removes any left by a killed
harness. The container's processes are host processes: their host PIDs feed the meters.
"""
from __future__ import annotations

import json
import os
import signal
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.measurement import procs
from harness.measurement.backends import jit_cache
from harness.measurement.backends.base import (
    AGENT_DIR,
    STDERR_TAIL_BYTES,
    VERSION_CODE,
    CellRefused,
    CellSpec,
    EngineLost,
    GpuRefused,
    agent_argv,
    closing,
    reaper_argv,
)
from harness.measurement.backends.capped_log import CappedLog
from harness.measurement.backends.owned_containers import (
    LABEL_CELL,
    LABEL_RUN,
    LABEL_USER,
    NAME_PREFIX,
    create_tracked,
    engine_silent,
    remove_container,
    user,
)
from harness.measurement.backends.scenario_mount import readable_scenario_dir
from harness.measurement.gpu_access import GpuAccess, refused_hint
from harness.measurement.protocol import split_lines

MOUNT_AGENT = "/opt/harness/agent"
MOUNT_SCENARIO = "/opt/harness/scenario"
MOUNT_ACK = "/opt/harness/ack"
MOUNT_IPYTHON = "/opt/harness/ipython"
MOUNT_EVENTS = "/opt/harness/events"  # writable: the script's spawned workers leave their checkpoints there

@dataclass
class DockerCell:
    container: Any
    spec: CellSpec
    facts: dict[str, Any] = field(default_factory=dict)
    _pid: int | None = None
    _stderr: str | None = None

    def lines(self) -> Iterable[str]:
        return split_lines(self.container.logs(stream=True, follow=True, stdout=True, stderr=False))

    def root_pid(self) -> int | None:
        if self._pid is None:
            try:
                self.container.reload()
                self._pid = int(self.container.attrs["State"]["Pid"]) or None
            except Exception:
                return None
        return self._pid if self._pid and procs.alive(self._pid) else None

    def wait(self, timeout: float) -> int | None:
        try:
            result = self.container.wait(timeout=max(timeout, 0.1))
        except Exception:  # requests' ReadTimeout / ConnectionError: still running
            return None
        return int(result.get("StatusCode", -1))

    def stop(self, extra_pids: set[int]) -> None:
        try:
            self.container.kill()
        except Exception:  # already exited, or the engine is gone while its container's processes are not
            for pid in {*extra_pids, *([self._pid] if self._pid else [])}:
                if procs.alive(pid):
                    try:
                        os.kill(pid, signal.SIGKILL)  # the container's PID 1 first among them ends the rest
                    except OSError:
                        pass
        self._save_stderr()
        remove_container(self.container)

    def lost(self) -> str | None:
        return engine_silent(self.container.client)

    def _save_stderr(self) -> None:
        if self._stderr is not None:
            return
        log, last = CappedLog(self.spec.log_path), bytearray()
        try:  # streamed: a script that printed gigabytes costs neither memory nor disk
            for chunk in self.container.logs(stdout=False, stderr=True, stream=True):
                log.write(chunk)
                last = (last + chunk)[-STDERR_TAIL_BYTES:]
        except Exception:
            pass
        log.close()
        self._stderr = bytes(last).decode("utf-8", "replace")

    def stderr_tail(self) -> str:
        self._save_stderr()
        return self._stderr or ""


@dataclass
class DockerBackend:
    """Runs cells in containers of ``image``, with the GPU given as ``access`` says."""

    client: Any
    image: str
    python: str = "python"
    user: str = "65534:65534"
    access: GpuAccess = field(default_factory=lambda: GpuAccess("none", "no GPU asked for"))
    name: str = "docker"
    ipython: Path | None = None
    _image: dict[str, Any] = field(default_factory=dict)

    @property
    def gpus(self) -> bool:
        return self.access.mode != "none"

    def python_version(self) -> str | None:
        """Asked of the image's Python in a throwaway container (no network, no GPU)."""
        try:
            out = self.client.containers.run(self.image, [self.python, "-S", "-c", VERSION_CODE], remove=True,
                                             network_mode="none", user=self.user or None, stdout=True, stderr=False)
        except Exception:
            return None
        return bytes(out).decode("utf-8", "replace").strip() or None

    def _image_config(self) -> dict[str, Any]:
        if not self._image:
            try:
                image = self.client.images.get(self.image)
                env = dict(e.split("=", 1) for e in (image.attrs.get("Config") or {}).get("Env") or [] if "=" in e)
                self._image = {"image_id": image.id, "image_labels": image.labels or {}, "env": env}
            except Exception:
                self._image = {"image_id": None, "image_labels": {}, "env": {}}
        return self._image

    def describe(self) -> dict[str, Any]:
        image = self._image_config()
        return {"backend": self.name, "image": self.image, "image_id": image["image_id"],
                "image_labels": image["image_labels"], "gpu_mode": self.access.mode,
                "gpu_request": "all" if self.gpus else "none", "gpu_note": self.access.reason,
                "user": self.user or "image default"}

    def gpu_options(self) -> dict[str, Any]:
        """What a container of this backend is given for the GPU (the docker SDK's create arguments)."""
        from docker.types import DeviceRequest, Mount

        if self.access.mode == "gpus":
            return {"device_requests": [DeviceRequest(count=-1, capabilities=[["gpu"]])]}
        if self.access.mode == "cdi":
            return {"device_requests": [DeviceRequest(driver="cdi", device_ids=["nvidia.com/gpu=all"])]}
        if self.access.mode == "devices":
            return {"devices": [f"{node}:{node}:rwm" for node in self.access.devices],
                    "mounts": [Mount(target, source, type="bind", read_only=True) for source, target in self.access.mounts]}
        return {}

    def _gpu_environment(self) -> dict[str, str]:
        cache = jit_cache.environment(self._image_config()["env"]) if self.gpus else {}
        env = {**cache, **self.access.environment}
        if "LD_LIBRARY_PATH" in env:  # keep the image's own library path (CUDA bases set one)
            own = self._image_config()["env"].get("LD_LIBRARY_PATH")
            if own:
                env["LD_LIBRARY_PATH"] = f"{env['LD_LIBRARY_PATH']}:{own}"
        return env

    def start(self, spec: CellSpec) -> DockerCell:
        from docker.types import Mount

        scenario_dir = readable_scenario_dir(spec.scenario.path, spec.ack_dir, spec.scenario.companions)
        kit = self.ipython if spec.scenario.notebook else None
        agent_spec = spec.agent_spec(scenario_path=f"{MOUNT_SCENARIO}/{spec.scenario.path.name}", ack_dir=MOUNT_ACK,
                                     ipython=MOUNT_IPYTHON if kit else None,
                                     events=MOUNT_EVENTS if spec.events_dir else None)
        environment = {"HOME": "/tmp", **self._gpu_environment(), **spec.env_vars}  # the non-root user needs a HOME
        if self.gpus:  # every GPU is in the container; CUDA sees the cell's
            environment.update({k: v for k, v in spec.gpu_pin().items() if k not in environment})
        gpu = self.gpu_options()
        mounts = [
            Mount(MOUNT_AGENT, str(AGENT_DIR), type="bind", read_only=True),
            Mount(MOUNT_SCENARIO, str(scenario_dir), type="bind", read_only=True),
            Mount(MOUNT_ACK, str(spec.ack_dir), type="bind", read_only=True),
            *gpu.pop("mounts", []),
            *([Mount(MOUNT_IPYTHON, str(kit), type="bind", read_only=True)] if kit else []),
            *([Mount(MOUNT_EVENTS, str(spec.events_dir), type="bind")] if spec.events_dir else []),
        ]
        if self.gpus:
            mounts.append(Mount(jit_cache.MOUNT, str(jit_cache.folder()), type="bind"))
        name = NAME_PREFIX + uuid.uuid4().hex[:12]
        try:
            container = create_tracked(self.client, name,
                                        lambda: self._create(spec, agent_spec, environment, mounts, gpu, name))
        except Exception as exc:
            explained = self._explained(exc)
            if explained:
                raise explained from exc
            raise
        try:
            if closing.is_set():  # the run was stopped while this container was being created
                raise CellRefused
            container.start()
        except BaseException as exc:
            remove_container(container)
            explained = self._explained(exc)
            if explained:
                raise explained from exc
            raise
        return DockerCell(container, spec, facts={"container": container.name})

    def _explained(self, exc: BaseException) -> Exception | None:
        """What a failed create or start was when not the cell's doing: the engine gone (no cell can
        start now) or the cell's GPU request refused (with the way out)."""
        if not isinstance(exc, Exception):
            return None
        silent = engine_silent(self.client)
        if silent:
            return EngineLost(silent)
        hint = refused_hint(self.access.mode, str(exc))
        return GpuRefused(f"{hint} ({str(exc).splitlines()[0]})") if hint else None

    def _create(self, spec: CellSpec, agent_spec: dict[str, Any], environment: dict[str, str], mounts: list[Any],
                gpu: dict[str, Any], name: str) -> Any:
        return self.client.containers.create(
            self.image,
            # The reaper is the container's PID 1: it reaps, and holds what the script leaves running
            # until the harness has named it (docker's own init would end the container, and with
            # it every such process, unseen, the moment the script exits).
            command=reaper_argv(self.python, MOUNT_AGENT, spec.nonce,
                                agent_argv(self.python, MOUNT_AGENT, json.dumps(agent_spec))),
            name=name,
            labels={LABEL_RUN: spec.run_id, LABEL_CELL: spec.cell_id, LABEL_USER: user(), "harness.env": spec.env_name,
                    "harness.scenario": spec.scenario.name, **spec.labels},
            environment=environment,
            mounts=mounts,
            network_mode="none",
            # Its own name resolves, to loopback, as on a machine with a network: a launcher's
            # rendezvous (torchrun, NCCL's bootstrap) looks the hostname up and fails without it.
            hostname=name, extra_hosts={name: "127.0.0.1"},
            user=self.user or None,
            working_dir="/tmp",
            # A private, writable /tmp for every cell: the cell runs as nobody, and an image's own /tmp
            # may be missing (docker then makes the working dir root-owned) or not writable by it.
            tmpfs={"/tmp": "rw,exec,mode=1777"},
            **gpu,
        )
