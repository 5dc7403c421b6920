#!/usr/bin/env bash
# CuPy and JAX rows in their containers on a lent GPU machine (no network, no Docker, CUDA 13
# wheels installed on the host): the committed Dockerfiles (images/cupy, images/jax) built with the
# pins that machine holds (cupy-cuda13x[ctk], jax[cuda13]: their wheels repacked from the host's
# own installation by repack_installed.py, the only way to have them there), the GPU through CDI,
# and the same scenarios through the host's own interpreter beside them for the agreement table.
#
# Here first (both folders git-ignored, named in the call's carry):
#   ../shared/tools/gpu-docker/make-bundle.sh .gpu-docker
#   pip download --no-deps --only-binary=:all: --python-version 3.12 -d .host-wheels docker jsonschema \
#     jsonschema-specifications referencing rpds-py        (the host tools the machine lacks)
# and, for JAX, nvidia-cuda-nvcc, nvidia-nvvm and nvidia-cuda-crt of the machine's CUDA (13.0.88)
# carried into /root/gw/wh-jax (the machine compiles PTX with its /usr/local/cuda, which the
# stand-in base leaves out), with "nvidia-cuda-nvcc==V", "nvidia-nvvm==V" added to jax's packages.
#
#   setup        engine ($BUNDLE, default .gpu-docker; a v2 bundle's nvidia-ctk writes the CDI spec, harness
#                cdi-spec's is compared with it), stand-in CUDA bases, wheelhouses, environments.toml
#   (matrix: the mode the harness chooses, or GPU_MODE=cdi|gpus|devices)
#   image ENV    build ENV's gpu image from its wheelhouse (offline)
#   torch-env    torch's row too: the machine's torch repacked, its pins added to environments.toml
#   matrix OUT   cupy and jax (or $ROWS) in containers, each beside host-python, into OUT
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
work=/root/gw
export PATH=/tmp/dk/bin:$PATH PYTHONPATH=/root/hs:$here
step=${1:?usage: container_rows.sh setup|torch-env|image ENV|matrix OUT}

# row_env NAME PACKAGES: an environment of the committed images/NAME on the CUDA 13 stand-in base
row_env() {
  printf '\n[environments.%s]\npython_version = "3.12"\nfamily = ["%s"]\ndockerfile = "images/%s"\npython = "python"\n' \
    "$1" "$1" "$1"
  printf '[environments.%s.variants.gpu]\nbase = "nvidia/cuda:13.0.0-base-ubuntu24.04"\npackages = [%s]\n' "$1" "$2"
}
# pins_toml FILE: repack_installed.py's NAME==VERSION lines as a TOML list's items (pip left out)
pins_toml() { grep -v '^pip==' "$1" | awk '{printf "%s\"%s\"", (NR>1?", ":""), $1}'; }

case $step in
  setup)
    mkdir -p /root/hs "$work"
    python3 -m pip install -q --no-index --no-deps --no-compile --target /root/hs "$here"/.host-wheels/*.whl
    bundle=${BUNDLE:-$here/.gpu-docker}
    if tar -tJf "$bundle/docker-bin.tar.xz" | grep -c nvidia-cdi-hook >/dev/null; then  # -c: reads it all (pipefail)
      # v2 (Docker 29.7 + nvidia-ctk): the toolkit's spec is the engine's; ours beside it, to compare
      # shellcheck disable=SC1091
      source "$bundle/start-dockerd.sh" "$bundle" cdi
      python3 -m harness cdi-spec --output /root/harness-cdi
      python3 "$here/tools/lab/compare_cdi_specs.py" /etc/cdi/nvidia.yaml /root/harness-cdi/nvidia.json --json "$work/cdi-compare.json"
      cp /etc/cdi/nvidia.yaml "$work/nvidia-ctk-spec.yaml" && cp /root/harness-cdi/nvidia.json "$work/harness-spec.json"
    else
      # shellcheck disable=SC1091
      source "$bundle/start-dockerd.sh" "$bundle"
      python3 -m harness cdi-spec --output /etc/cdi
    fi
    docker info --format '{{json .}}' >"$work/docker-info.json"
    bash "$here/tools/lab/docker_gpu_images.sh" bases
    python3 "$here/tools/lab/repack_installed.py" "$work/wh-cupy" 'cupy-cuda13x[ctk]' pip
    python3 "$here/tools/lab/repack_installed.py" "$work/wh-jax" 'jax[cuda13]' pip | tee "$work/jax-pins.txt"
    # ptxas and libnvvm for XLA (jax[cuda13]'s with-cuda extra), carried here as wheels into $JAX_CUDA_WHEELS
    for wheel in "${JAX_CUDA_WHEELS:-/root/jx}"/nvidia_{cuda_nvcc,nvvm}-*.whl; do
      [ -f "$wheel" ] || continue
      cp "${JAX_CUDA_WHEELS:-/root/jx}"/*.whl "$work/wh-jax/"
      name=$(basename "$wheel" | cut -d- -f1 | tr _ -) version=$(basename "$wheel" | cut -d- -f2)
      echo "$name==$version" >>"$work/jax-pins.txt"
    done
    cupy=$(python3 -c 'import importlib.metadata as m; print(m.version("cupy-cuda13x"))')
    {
      echo "# The lent machine's own CUDA 13 stack, in the committed Dockerfiles (tools/lab/container_rows.sh)."
      row_env cupy "\"cupy-cuda13x[ctk]==$cupy\""
      row_env jax "$(pins_toml "$work/jax-pins.txt")"
      printf '\n[environments.host-python]\nfamily = ["jax", "cupy"]\ninterpreter = "python3"\ndefault = false\n'
    } >"$work/environments.toml"
    cat "$work/environments.toml"
    python3 -m harness doctor --environments "$work/environments.toml" || true
    ;;
  torch-env)
    # torch as the machine holds it (its CUDA wheels repacked): a row beside cupy and jax
    python3 "$here/tools/lab/repack_installed.py" "$work/wh-torch" torch pip | tee "$work/torch-pins.txt"
    row_env torch "$(pins_toml "$work/torch-pins.txt")" >>"$work/environments.toml"
    sed -i 's/^family = \["jax", "cupy"\]$/family = ["jax", "cupy", "torch"]/' "$work/environments.toml"
    grep -A3 'environments.torch.variants' "$work/environments.toml" | cut -c1-300
    ;;
  image)
    env=${2:?environment}
    start=$(date +%s)
    python3 -m harness images --variant gpu --offline --wheelhouse "$work/wh-$env" --environments "$work/environments.toml" \
      --env "$env"
    echo "$env image built in $(( $(date +%s) - start )) s"
    docker image inspect --format '{{.Id}} {{.Size}} {{json .Config.Labels}}' "gpu-cleanup-matrix/$env:gpu"
    ;;
  matrix)
    # One run per framework, each with the wheelhouse its image was built from: the build identity
    # covers the wheels, so any other would make the run rebuild the image (offline: fail).
    out=${2:?results folder}
    for env in ${ROWS:-cupy jax}; do
      python3 -m harness matrix --variant gpu ${GPU_MODE:+--gpu-mode "$GPU_MODE"} --offline --wheelhouse "$work/wh-$env" \
        --environments "$work/environments.toml" --env "$env" --env host-python --scenario "$env/*" --results "$out" || true
    done
    ;;
  *) echo "unknown step $step" >&2; exit 2 ;;
esac
