#!/usr/bin/env bash
# tests/benchmarks/bench_container_overhead.py on a lent GPU machine (no Docker, no registry, no
# network): the torch gpu image built from the committed Dockerfile with the machine's own PyTorch
# (its installed wheels zipped again, tools/lab/repack_installed.py), then the same scenario in a
# container of it and bare in the host's Python. One step per call.
#
# Here: `make-bundle.sh .gpu-docker` (../shared/tools/gpu-docker), then `pieces.sh cut` of it into
# .lab/dk, and .lab/wheels (the harness's own dependencies for the host's Python).
#   setup                   there, after `pieces.sh join`: dockerd (CDI on), the harness's wheels, a CDI
#                           spec, the stand-in bases (docker_gpu_images.sh bases)
#   image                   the host's torch and numpy as wheels, an environments file pinning exactly
#                           them on the torch Dockerfile and the CUDA 13.0 base, the gpu image built offline
#   bench RUNS              the benchmark, as bench_container_overhead.py prints it
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
export NCCL_NVLS_ENABLE=0 PATH=/tmp/dk/bin:$PATH HOST_SITE=/root/host-site
harness() { PYTHONPATH="$HOST_SITE:$here" python3 -m harness "$@"; }
case ${1:?usage: container_overhead_gpu.sh setup | image | bench RUNS} in
  setup)
    # shellcheck disable=SC1091
    source /root/dk/start-dockerd.sh /root/dk
    python3 -m pip install -q --no-index --no-deps --no-compile --target "$HOST_SITE" "$here"/.lab/wheels/*.whl
    harness cdi-spec --output /etc/cdi
    bash "$here/tools/lab/docker_gpu_images.sh" bases
    ;;
  image)
    start=$(date +%s)
    rm -rf /root/gw && mkdir -p /root/gw/wh
    pins=$(python3 "$here/tools/lab/repack_installed.py" /root/gw/wh torch numpy pip | grep -E '^(torch|numpy)==' | awk '{print $1}' | paste -sd, -)
    echo "wheels: $(ls /root/gw/wh | wc -l), $(du -sh /root/gw/wh | cut -f1); pins $pins ($(( $(date +%s) - start )) s)"
    python3 - "$pins" >/root/gw/environments.toml <<'EOF'
import sys
pins = ", ".join(f'"{p}"' for p in sys.argv[1].split(","))
print(f"""[environments.torch]
python_version = "3.12"
family = ["torch"]
dockerfile = "images/torch"
python = "python"

[environments.torch.variants.gpu]
base = "nvidia/cuda:13.0.0-base-ubuntu24.04"
packages = [{pins}]""")
EOF
    cp -r "$here/images" /root/gw/
    cat /root/gw/environments.toml
    harness images --variant gpu --wheelhouse /root/gw/wh --offline --env torch --environments /root/gw/environments.toml
    docker images --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep torch
    echo "image made in $(( $(date +%s) - start )) s"
    ;;
  bench)
    image=$(docker images --format '{{.Repository}}:{{.Tag}}' | grep -m1 '/torch:gpu$')
    cd "$here" && PYTHONPATH="$HOST_SITE" python3 tests/benchmarks/bench_container_overhead.py --image "$image" \
      --interpreter "$(command -v python3)" --runs "${2:-5}" --variant gpu
    ;;
  *) echo "unknown step $1" >&2; exit 2 ;;
esac
