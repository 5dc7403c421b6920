#!/usr/bin/env bash
# PyTorch releases swept on a lent GPU machine (no network, no registry), each in the product's own
# container: `harness sweep --backend docker --variant gpu` builds every release's image from
# images/adhoc on a stand-in CUDA base and runs the torch scenarios there, the GPU through --gpus.
# The wheelhouse is the index: the machine's own torch 2.11 and its CUDA 13 wheels repacked
# (repack_installed.py), plus what the other releases pin that the machine lacks (their torch,
# triton, cuDNN, NCCL and toolkit wheels), carried in pieces (pieces.sh). Each image gets only
# the wheels its release reaches (wheel_selection.py). Five 12-13 GB images and their build contexts
# do not fit the machine's 64 GB disk: the engine's data root and the builds' temporary folders
# live on its RAM disk (/dev/shm), and two images build at a time.
#
# Here first: the wheels of `uv pip compile` for each release minus the machine's own versions,
# downloaded into tsw/ and cut: `pieces.sh cut OUT tsw tsw`, one piece per ignored folder .tsw/NNN.
#   setup BUNDLE      (in the background) engine, stand-in bases, the machine's torch repacked
#   collect FOLDER    copy the pieces carried in FOLDER to /root/ptsw
#   join              check and unpack the pieces into the wheelhouse
#   sweep OUT FROM TO the sweep, in the background: its progress lines in OUT.log
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
work=/root/tsweep wh=/root/tsweep/wh
export PATH=/tmp/dk/bin:$PATH PYTHONPATH=/root/hs:$here
case ${1:?usage: torch_gpu_sweep.sh setup BUNDLE|collect FOLDER|join|sweep OUT FROM TO} in
  setup)
    mkdir -p /root/hs "$wh"
    python3 -m pip install -q --no-index --no-deps --no-compile --target /root/hs "$here"/.host-wheels/*.whl
    # the data root start-dockerd.sh names, on the RAM disk (dockerd follows a symlinked root)
    mkdir -p /dev/shm/dkdata && ln -sfn /dev/shm/dkdata /tmp/dkdata
    # shellcheck disable=SC1091
    source "${2:?bundle}/start-dockerd.sh" "$2" cdi
    docker info --format '{{json .}}' >"$work/docker-info.json"
    bash "$here/tools/lab/docker_gpu_images.sh" bases
    # the CUDA 12 runtime base a --with torch build names (adhoc.py): the same stand-in, CUDA only from pip
    docker tag harness-gpu/ubuntu-host:24.04 nvidia/cuda:12.8.1-runtime-ubuntu24.04
    python3 "$here/tools/lab/repack_installed.py" "$wh" torch pip >"$work/torch-2.11-pins.txt"
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >"$work/gpu.txt"
    python3 -m harness doctor 2>&1 | grep -i "container GPU access" || true
    echo "setup done: $(ls "$wh" | wc -l) wheels"
    ;;
  collect) bash "$here/tools/lab/pieces.sh" collect "${2:?folder}" /root/ptsw ;;
  join)
    bash "$here/tools/lab/pieces.sh" join /root/ptsw tsw "$work/carried" && rm -rf /root/ptsw
    mv "$work"/carried/tsw/*.whl "$wh"/ && ls "$wh" | wc -l
    ;;
  sweep)
    out=${2:?results folder}
    mkdir -p "$(dirname "$out")" /dev/shm/tmp
    (TMPDIR=/dev/shm/tmp setsid python3 -m harness sweep --package torch --from "${3:?from}" --to "${4:?to}" \
       --scenario 'torch/*' --backend docker --variant gpu --index-url "$wh" --wheelhouse "$wh" --offline --repeat 2 \
       --jobs 2 --results "$out" >"$out.log" 2>&1 &)
    ;;
  *) echo "unknown step $1" >&2; exit 2 ;;
esac
