#!/usr/bin/env bash
# The product's own path on a GPU host that has an NVIDIA driver but no Docker, no container
# toolkit and no registry: gpu images built from the committed Dockerfiles, cells run in them
# with GPU access through CDI. One step per call (a lent GPU machine takes a call at a time).
#
#   engine BUNDLE_DIR       start the bundled dockerd (CDI on; ../shared/tools/gpu-docker)
#   cdi                     write a CDI spec for this driver with `harness cdi-spec` (needs the host tools)
#   bases                   stand-ins for the Ubuntu 24.04 CUDA bases, made from this host's own
#                           Ubuntu 24.04 by `docker import`, WITHOUT its CUDA toolkit, driver or
#                           Python packages: what a minimal nvidia/cuda *-base-* image holds, so the
#                           images' CUDA can only come from the pip wheels
#   images WHEELHOUSE ENV.. `nox -s images -- --variant gpu --wheelhouse DIR --offline --env ENV`
#   matrix RESULTS ENV...   `nox -s matrix -- --variant gpu --gpu-mode cdi --env ENV` into RESULTS
#
# Host tools (nox, the docker SDK, rich, setuptools) come from the wheelhouse too: PIP_NO_INDEX
# and PIP_FIND_LINKS point every pip at it. The stand-in bases are recorded by name and id in each
# image's labels (harness.base, harness.base-id), and so in every record.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
export PATH=/tmp/dk/bin:$PATH NOX_DEFAULT_VENV_BACKEND=venv
step=${1:?usage: docker_gpu_images.sh engine BUNDLE|cdi|bases|images WHEELHOUSE ENV...|matrix RESULTS ENV...}
shift

harness() { PYTHONPATH="${HOST_SITE:-$HOME/host-site}:$here" python3 -m harness "$@"; }

case $step in
  engine)
    # shellcheck disable=SC1091
    source "${1:?bundle folder}/start-dockerd.sh" "$1"
    ;;
  cdi)
    harness cdi-spec --output /etc/cdi
    harness doctor || true
    ;;
  bases)
    start=$(date +%s)
    tar -C / --one-file-system -c \
      --exclude=usr/local/nvidia --exclude='usr/local/cuda*' --exclude='usr/local/lib/python3*' --exclude='usr/local/bin/*' \
      --exclude='usr/lib/libcuda*' --exclude='usr/lib/libnvidia*' --exclude='usr/lib/x86_64-linux-gnu/libcuda*' \
      --exclude='usr/lib/x86_64-linux-gnu/libnvidia*' --exclude=usr/share/doc --exclude=usr/src --exclude='usr/bin/nvidia-*' \
      usr lib lib64 bin sbin etc 2>/dev/null \
      | docker import -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
          -c 'ENV NVIDIA_VISIBLE_DEVICES=all NVIDIA_DRIVER_CAPABILITIES=compute,utility' - harness-gpu/ubuntu-host:24.04 >/dev/null
    for tag in $(python3 -c "import tomllib; e = tomllib.load(open('$here/matrix/environments.toml', 'rb'))['environments']
print(' '.join(sorted({v['variants']['gpu']['base'] for v in e.values() if 'gpu' in v.get('variants', {}) and 'ubuntu24.04' in v['variants']['gpu']['base']})))"); do
      docker tag harness-gpu/ubuntu-host:24.04 "$tag"
      echo "stand-in $tag = $(docker image inspect --format '{{.Id}} {{.Size}}' "$tag")"
    done
    echo "bases made in $(( $(date +%s) - start )) s"
    ;;
  images)
    wheels=${1:?wheelhouse}; shift
    export PIP_NO_INDEX=1 PIP_FIND_LINKS=$wheels
    args=(); for env in "$@"; do args+=(--env "$env"); done
    (cd "$here" && PYTHONPATH="${HOST_SITE:-$HOME/host-site}" python3 -m nox -s images -- --variant gpu \
       --wheelhouse "$wheels" --offline "${args[@]}")
    ;;
  matrix)
    results=${1:?results folder}; shift
    export PIP_NO_INDEX=1 PIP_FIND_LINKS=${WHEELHOUSE:-$HOME/gw/wh}
    args=(); for env in "$@"; do args+=(--env "$env"); done
    (cd "$here" && PYTHONPATH="${HOST_SITE:-$HOME/host-site}" python3 -m nox -s matrix -- --variant gpu --gpu-mode cdi \
       --results "$results" "${args[@]}")
    ;;
  *) echo "unknown step $step" >&2; exit 2 ;;
esac
