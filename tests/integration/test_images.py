"""Each environment's cpu image builds and reports its framework at the pinned version."""
from __future__ import annotations

import pytest
from dockerkit import docker_run

from harness.environments.images import HASH_LABEL

PROBES = {
    "tf1.8": ("tensorflow", "import tensorflow as tf; print(tf.__version__)"),
    "tf2.7": ("tensorflow-cpu", "import tensorflow as tf; print(tf.__version__)"),
    "tf-current": ("tensorflow-cpu", "import tensorflow as tf; print(tf.__version__)"),
    "torch": ("torch", "import torch; print(torch.__version__)"),
    "jax": ("jax", "import jax; print(jax.__version__)"),
    "cupy": ("cupy-cuda12x", "import cupy; print(cupy.__version__)"),
}


@pytest.mark.parametrize("env_name", sorted(PROBES))
def test_cpu_image_builds_and_runs_its_pinned_framework(env_name: str, cpu_image, environments, docker_client) -> None:
    tag = cpu_image(env_name)
    package, probe = PROBES[env_name]
    pin = next(p for p in environments[env_name].variant("cpu").packages if p.startswith(package + "=="))
    version = docker_run(tag, "python", "-c", probe).strip().splitlines()[-1]
    assert version.split("+")[0] == pin.split("==")[1], f"{tag} runs {package} {version}, pinned {pin}"
    labels = docker_client.images.get(tag).labels
    assert labels[HASH_LABEL] == environments[env_name].definition_hash("cpu")
