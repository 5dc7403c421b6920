#!/usr/bin/env bash
# On a host with two or more GPUs, an NVIDIA driver and no Docker: the torch row in its container
# (the committed images/torch Dockerfile on a stand-in CUDA 13 base, the machine's own torch
# repacked into wheels) on one GPU and on every GPU (tests/benchmarks/bench_gpus.py --image, beside
# the process backend's figure), and the multi-GPU scripts of tests/fidelity run bare in that image
# and under `repro --image` (the GPUs through CDI), compared line by line. One step per call.
#
# Here first (both git-ignored, cut to fit a call's carry by pieces.sh, carried one per call):
#   ../shared/tools/gpu-docker/make-bundle.sh .gpu-docker
#   tools/lab/pieces.sh cut .gp lab .gpu-docker .host-wheels
#
#   collect DIR     there: a carried piece folder into /root/store (repeat per piece)
#   setup           join the pieces, host wheels, the engine (CDI spec by `harness cdi-spec`), the
#                   stand-in bases, the machine's torch repacked, environments.toml with the torch row
#   image           the torch gpu image, offline from that wheelhouse
#   bench OUT       bench_gpus: torch rows through the process backend, then in the image
#   repro OUT       tests/fidelity/multigpu (+ the torchrun scripts) bare in the image and under repro --image
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
work=/root/gw
export PATH=/tmp/dk/bin:$PATH PYTHONPATH=/root/hs:$here NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1 NO_COLOR=1 COLUMNS=170
image=gpu-cleanup-matrix/torch:gpu
step=${1:?usage: docker_multigpu.sh collect DIR|setup|image|bench OUT|repro OUT}
case $step in
  collect) bash "$here/tools/lab/pieces.sh" collect "${2:?piece folder}" /root/store ;;
  setup)
    start=$(date +%s)
    bash "$here/tools/lab/pieces.sh" join /root/store lab /root/lab
    mkdir -p /root/hs "$work"
    python3 -m pip install -q --no-index --no-deps --no-compile --target /root/hs /root/lab/.host-wheels/*.whl
    # shellcheck disable=SC1091
    source /root/lab/.gpu-docker/start-dockerd.sh /root/lab/.gpu-docker
    for _ in $(seq 30); do docker info >/dev/null 2>&1 && break; sleep 1; done
    python3 -m harness cdi-spec --output /etc/cdi
    docker info --format '{{json .}}' >"$work/docker-info.json"
    bash "$here/tools/lab/docker_gpu_images.sh" bases
    python3 "$here/tools/lab/repack_installed.py" "$work/wh-torch" torch pip | tee "$work/torch-pins.txt"
    pins=$(grep -v '^pip==' "$work/torch-pins.txt" | awk '{printf "%s\"%s\"", (NR>1?", ":""), $1}')
    printf '[environments.torch]\npython_version = "3.12"\nfamily = ["torch"]\ndockerfile = "images/torch"\npython = "python"\n[environments.torch.variants.gpu]\nbase = "nvidia/cuda:13.0.0-base-ubuntu24.04"\npackages = [%s]\n' \
      "$pins" >"$work/environments.toml"
    echo "setup in $(( $(date +%s) - start )) s"
    ;;
  image)
    start=$(date +%s)
    python3 -m harness images --variant gpu --offline --wheelhouse "$work/wh-torch" --environments "$work/environments.toml" --env torch
    echo "torch image built in $(( $(date +%s) - start )) s"
    docker image inspect --format '{{.Id}} {{.Size}}' "$image"
    ;;
  bench)
    out=${2:?results folder}; mkdir -p "$out"
    nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader >"$out/gpu.txt"
    python3 -c "import sys, torch; print('python', sys.version.split()[0], 'torch', torch.__version__)" >"$out/versions.txt"
    docker version --format '{{.Server.Version}}' >>"$out/versions.txt"
    { echo "# process backend (the host's python3)"; python3 tests/benchmarks/bench_gpus.py --family torch --scenario 'torch/*'
      echo "# docker backend ($image)"; python3 tests/benchmarks/bench_gpus.py --image "$image" --family torch --scenario 'torch/*'
    } 2>&1 | tee "$out/bench-gpus.txt"
    ;;
  repro)
    out=${2:?results folder}; mkdir -p "$out"
    runs=$(mktemp -d)/runs
    export FIDELITY_DOCKER_GPUS="--device=nvidia.com/gpu=all"  # as the harness gives them here (CDI)
    python3 tests/fidelity/compare.py --image "$image" --results "$runs" --json "$out/outcomes.json" --timeout 240 \
      tests/fidelity/multigpu/*.py tests/repro/torch_del_empty_cache.py >"$out/table.md" 2>"$out/compare.log" || true
    python3 tests/fidelity/compare.py --image "$image" --results "$runs" --json "$out/outcomes-launch.json" --timeout 240 \
      --launcher "torchrun --standalone --nproc_per_node=2" tests/fidelity/multigpu_launch/*.py \
      >"$out/table-launch.md" 2>>"$out/compare.log" || true
    for md in "$runs"/*/repro.md; do cat "$md"; done >"$out/repro.md"
    tar -C "$(dirname "$runs")" -czf "$out/runs.tgz" runs
    cat "$out/table.md" "$out/table-launch.md"; tail -5 "$out/compare.log"
    ;;
  *) echo "unknown step $step" >&2; exit 2 ;;
esac
