#!/usr/bin/env bash
# TensorFlow 1.8 in its container on a Hopper GPU machine (no network, no registry): the committed
# tf1.8 gpu Dockerfile and pin on the stand-in base tf18_pieces.sh made. Each call carries one piece
# in an ignored folder of the checkout; `collect` keeps them outside it.
#   engine BUNDLE   start the bundled dockerd (v2: the toolkit's CDI spec) and the host tools
#   collect FOLDER  copy the pieces carried in FOLDER to /root/p18
#   join            check the pieces, unpack the wheelhouse, load the stand-in as tensorflow/tensorflow:1.8.0-gpu
#   image           harness images --variant gpu --env tf1.8 (offline, the wheelhouse)
#   matrix OUT      the tf1 scenarios in tf1.8 containers (the mode the harness picks), into OUT
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
work=/root/gw/tf18
export PATH=/tmp/dk/bin:$PATH PYTHONPATH=/root/hs:$here
case ${1:?usage: tf18_rows.sh engine BUNDLE|collect FOLDER|join|image|matrix OUT} in
  engine)
    python3 -m pip install -q --no-index --no-deps --no-compile --target /root/hs "$here"/.host-wheels/*.whl
    # shellcheck disable=SC1091
    source "${2:?bundle}/start-dockerd.sh" "$2" cdi
    python3 -m harness doctor 2>&1 | grep -i "container GPU access"
    ;;
  collect) bash "$here/tests/gpu/pieces.sh" collect "${2:?folder}" /root/p18 ;;
  join)
    bash "$here/tests/gpu/pieces.sh" join /root/p18 tf18 "$work" && rm -rf /root/p18
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
  *) echo "unknown step $1" >&2; exit 2 ;;
esac
