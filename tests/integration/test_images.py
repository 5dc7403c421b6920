"""Each environment's cpu image builds and reports its framework at the pinned version."""
from __future__ import annotations

import pytest
from dockerkit import docker_run

from harness.environments.images import HASH_LABEL, IDENTITY_LABEL, BuildOptions, build_identity, image_current

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


def test_an_image_built_otherwise_is_not_taken_for_the_same_build(cpu_image, environments, docker_client,
                                                                  build_options, tmp_path) -> None:
    """Same Dockerfile and pins, other wheels handed over (pip would resolve other packages): not current."""
    env = environments["torch"]
    tag = cpu_image(env.name)
    same = build_options
    labels = docker_client.images.get(tag).labels
    assert labels[IDENTITY_LABEL] == build_identity(env, "cpu", same)
    assert image_current(docker_client, env, "cpu", same)
    other = tmp_path / "wheels"
    other.mkdir()
    (other / "torch-2.13.0+cu130-cp311-cp311-linux_x86_64.whl").write_bytes(b"not the CPU build")
    assert not image_current(docker_client, env, "cpu", BuildOptions(wheelhouse=other))
    assert image_current(docker_client, env, "cpu")  # doctor's question: built for this definition at all
