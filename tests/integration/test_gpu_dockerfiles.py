"""Every gpu Dockerfile builds, up to pip's resolution of its pins, on a stand-in for its CUDA base.

No GPU and no registry here: `.ci/make-bases.sh` puts bare Debian systems (no Python, as on the
CUDA images) under the CUDA bases' names behind the project's own prefix (HARNESS_BASE_MIRROR),
so install.sh takes its Python from apt as it would on the real Ubuntu bases, and pip resolves
each environment's gpu pins against the index without installing them. A broken gpu Dockerfile
or pin fails here, not on a user's GPU host.
"""
from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from dockerkit import base_or_skip

from harness.common.errors import BuildError
from harness.definitions import config
from harness.definitions.config import REPO
from harness.environments import images

CHECK = images.BuildOptions(check_only=True)


def _gpu_envs() -> list[str]:
    return sorted(name for name, env in config.load_environments().items() if env.kind == "build" and "gpu" in env.variants)


@pytest.mark.parametrize("name", _gpu_envs())
def test_gpu_dockerfile_builds_and_its_pins_resolve(name: str, docker_client: Any, environments: dict) -> None:
    env = environments[name]
    base_or_skip(docker_client, env.variant("gpu").base)
    notes: list[str] = []
    images.build(docker_client, env, "gpu", CHECK, notes.append)
    assert any("Step" in n for n in notes)
    # nothing is left that could pass for a built image
    assert not docker_client.images.list(name=env.image_tag("gpu") + "-check")


def _broken_copy(tmp_path: Path, env: config.EnvDef, old: str, new: str) -> config.EnvDef:
    folder = tmp_path / env.name
    shutil.copytree(REPO / env.dockerfile, folder)
    dockerfile = folder / "Dockerfile"
    text = dockerfile.read_text()
    assert old in text
    dockerfile.write_text(text.replace(old, new))
    return replace(env, dockerfile=str(folder))  # an absolute folder: build_context reads it as it is


def test_a_broken_gpu_dockerfile_fails(tmp_path: Path, docker_client: Any, environments: dict) -> None:
    env = environments["torch"]
    base_or_skip(docker_client, env.variant("gpu").base)
    broken = _broken_copy(tmp_path, env, "COPY build/ /tmp/build/", "COPY build/ /tmp/bulid/")
    with pytest.raises(BuildError, match=f"building {config.image_prefix()}/torch:gpu-[0-9a-f]{{16}}-check on .* failed"):
        images.build(docker_client, broken, "gpu", CHECK, lambda text: None)


def test_a_gpu_pin_that_does_not_exist_fails(docker_client: Any, environments: dict) -> None:
    env = environments["torch"]
    base_or_skip(docker_client, env.variant("gpu").base)
    gpu = env.variant("gpu")
    bad = replace(env, variants={**env.variants, "gpu": replace(gpu, packages=["torch==2.15.404"])})
    with pytest.raises(BuildError) as failed:
        images.build(docker_client, bad, "gpu", CHECK, lambda text: None)
    assert "torch==2.15.404" in (failed.value.detail or "")
