#!/usr/bin/env bash
# TensorFlow 1.8 in its container on a Hopper GPU machine (no network, no registry): the committed
# tf1.8 gpu Dockerfile and pins (its Hopper cuBLAS stage included) on the stand-in base
# tf18_pieces.sh made, and the same image's files run as a host process beside it (a chroot, no
# container) for the agreement table. Each call carries one piece in an ignored folder of the
# checkout; `collect` keeps them outside it.
#   engine BUNDLE   start the bundled dockerd (v2: the toolkit's CDI spec) and the host tools
#   collect FOLDER  copy the pieces carried in FOLDER to /root/p18
#   join            check the pieces, unpack the wheelhouse, load the stand-in as tensorflow/tensorflow:1.8.0-gpu
#   image           harness images --variant gpu --env tf1.8 (offline, the wheelhouse)
#   matrix OUT      the tf1 scenarios in tf1.8 containers (the mode the harness picks), into OUT
#   host OUT        the same scenarios through the process backend, with the image's Python 2.7, TF
#                   and CUDA 9.0 files as a chroot (env host-tf-1.8.0), the PTX cache the containers filled
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
work=/root/gw/tf18
export PATH=/tmp/dk/bin:$PATH PYTHONPATH=/root/hs:$here
case ${1:?usage: tf18_rows.sh engine BUNDLE|collect FOLDER|join|image|matrix OUT|host OUT} in
  engine)
    python3 -m pip install -q --no-index --no-deps --no-compile --target /root/hs "$here"/.host-wheels/*.whl
    # shellcheck disable=SC1091
    source "${2:?bundle}/start-dockerd.sh" "$2" cdi
    python3 -m harness doctor 2>&1 | grep -i "container GPU access"
    ;;
  collect) bash "$here/tools/lab/pieces.sh" collect "${2:?folder}" /root/p18 ;;
  join)
    bash "$here/tools/lab/pieces.sh" join /root/p18 tf18 "$work" && rm -rf /root/p18
    loaded=$(xz -dc "$work/standin.tar.xz" | docker load | sed -n 's/^Loaded image: //p' | tail -n 1)
    docker tag "$loaded" tensorflow/tensorflow:1.8.0-gpu && rm "$work/standin.tar.xz"
    echo "stand-in tensorflow/tensorflow:1.8.0-gpu = $loaded $(docker image inspect --format '{{.Id}} {{.Size}}' "$loaded")"
    ;;
  image)
    python3 -m harness images --variant gpu --offline --wheelhouse "$work/wh" --env tf1.8
    docker image inspect --format '{{.Id}} {{.Size}} {{json .Config.Labels}}' gpu-cleanup-matrix/tf1.8:gpu
    ;;
  matrix)
    python3 -m harness matrix --variant gpu --offline --wheelhouse "$work/wh" --env tf1.8 --timeout 900 \
      --results "${2:?results folder}" || true
    ;;
  host)
    # The chroot's mounts live in a private mount namespace of each command (unshare -m): they
    # vanish with it, so nothing of the host is ever reachable below $root when it is removed.
    root=$work/host out=${2:?results folder}
    grep -q " $root" /proc/mounts && { echo "$root has mounts: not removing it" >&2; exit 1; }
    rm -rf --one-file-system "$root" && mkdir -p "$root"
    cid=$(docker create gpu-cleanup-matrix/tf1.8:gpu) && docker export "$cid" | tar -C "$root" -x && docker rm -f "$cid" >/dev/null
    mkdir -p "$root$here" "$root/usr/local/nvidia" "$root/dev" "$root/proc" "$root/sys" "$root/tmp" "$root/root/gw"
    cat >"$work/in-root" <<SH
#!/bin/sh
exec /usr/bin/unshare --mount --propagation private sh -c 'for d in /dev /proc /sys /tmp /usr/local/nvidia $here; do
  mount --rbind "\$d" "$root\$d" || exit 1; done; exec /usr/sbin/chroot $root /usr/bin/env LD_LIBRARY_PATH=/usr/local/nvidia/lib64 "\$@"' sh "\$@"
SH
    chmod +x "$work/in-root"
    wrapper=/root/gw/tf-1.8.0  # the environment is named host-<wrapper name>
    printf '#!/bin/sh\nexec %s python "$@"\n' "$work/in-root" >"$wrapper" && chmod +x "$wrapper"
    printf '#!/bin/sh\nexec python "$@"\n' >"$root$wrapper" && chmod +x "$root$wrapper"
    # the PTX the driver compiled for the containers serves the host process too (same driver, GPU, PTX)
    mkdir -p /tmp/tf18-cuda-cache && cp -a "$HOME/.cache/gpu-cleanup-matrix/cuda-cache/." /tmp/tf18-cuda-cache/ 2>/dev/null || true
    "$wrapper" -c 'import tensorflow as tf; print("tensorflow", tf.__version__)'
    python3 -m harness matrix --backend process --interpreter "$wrapper" --family tf1 --timeout 900 \
      --setenv CUDA_CACHE_PATH=/tmp/tf18-cuda-cache --setenv CUDA_CACHE_MAXSIZE=4294967296 --results "$out" || true
    ;;
  *) echo "unknown step $1" >&2; exit 2 ;;
esac
