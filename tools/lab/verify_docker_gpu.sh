#!/usr/bin/env bash
# The whole GPU verification in one go, on a GPU host with an NVIDIA driver but no Docker and no
# container toolkit: start a Docker engine from a bundle (see docs/gpu-host.md: "Verified on an H100 without the
# toolkit"), make an image from the host's own Python install if there is none, then run the
# torch / JAX / CuPy rows twice in ONE matrix: through the docker backend (GPU mode `devices`)
# and through the process backend on the same interpreter, so the two columns can be compared.
#
# Usage: tools/lab/verify_docker_gpu.sh BUNDLE_DIR RESULTS_DIR
#   HOST_IMAGE   image to use or make (default torch-host:latest)
#   HOST_TREE    what of / goes into that image (default: the system and /opt/torch)
#   HOST_PYTHON  the interpreter with the frameworks (default python3)
set -euo pipefail
bundle=${1:?usage: verify_docker_gpu.sh BUNDLE_DIR RESULTS_DIR}
results=${2:?usage: verify_docker_gpu.sh BUNDLE_DIR RESULTS_DIR}
image=${HOST_IMAGE:-torch-host:latest}
tree=${HOST_TREE:-usr lib lib64 bin sbin etc opt/torch}
py=${HOST_PYTHON:-python3}
venv_bin=$(dirname "$(command -v "$py")")

# shellcheck disable=SC1091
source "$bundle/start-dockerd.sh" "$bundle"
if ! docker image inspect "$image" >/dev/null 2>&1; then
  echo "making $image from this host's install ($tree)"
  start=$(date +%s)
  # shellcheck disable=SC2086  # the tree is a list of top-level folders
  tar -C / --exclude=./usr/local/nvidia -c $tree | docker import -c "ENV PATH=$venv_bin:/usr/local/bin:/usr/bin:/bin" - "$image" >/dev/null
  echo "image made in $(( $(date +%s) - start ))s"
fi
"$py" -m harness doctor || true
docker info --format "{{json .}}" >"$results.docker-info.json" || true
"$py" -m harness matrix --image "$image" --interpreter "$py" --family torch --family jax --family cupy \
  --gpu-mode devices --results "$results"
