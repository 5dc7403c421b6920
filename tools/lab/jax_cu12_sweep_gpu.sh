#!/usr/bin/env bash
# JAX 0.4.x (0.4.26 and later: the CUDA 12 plugin on PyPI) swept on a lent GPU machine (no network, no Docker,
# CUDA 13 libraries only, Python 3.12), each release in a virtualenv the venv backend makes with
# `jax[cuda12]`: jax, jaxlib, the plugin and NVIDIA's cu12 wheels, whose libraries the plugin finds by its
# own RPATH. The cu12 wheels travel as skeletons (cuda_wheel_skeletons.py) around their libraries carried
# once, without what no JAX scenario loads (cuDNN's precompiled engines, cnn and adv parts; NCCL, which
# XLA opens at a first collective only); JAX's version check at start opens the rest (CUDA runtime, cuDNN,
# cuFFT, cuSOLVER, cuPTI, cuBLAS, cuSPARSE).
#
# Here (PyPI reachable), after `pip download` for cp312 of each release's jax, jaxlib, jax-cuda12-plugin and
# jax-cuda12-pjrt into DIR/wh, of what `jax[cuda12]==RELEASE` resolves to besides (the cu12 wheels, numpy,
# scipy, ml_dtypes, opt_einsum) into DIR/cu, and DIR/hostwheels (the harness's own dependencies):
#   pack DIR OUT             OUT/jxcu (the libraries, zstd; the skeletons; the small wheels; hostwheels; a
#                            zstd binary) and OUT/jxwh (the JAX wheels as they are), cut into pieces
# There, one piece per call (into /root/pc/GROUP), then:
#   join GROUP               checked and unpacked; jxcu: libraries into /root/cu12/lib, the cu12 wheels zipped
#                            again into the wheelhouse /root/jx/wh, the harness's wheels into /root/hs
#   start RESULTS -- ARGS    the sweep in the background (its own session: it outlives the call)
#   wait RESULTS SECONDS     wait up to SECONDS for the sweep, then say where it is
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
jx=/root/jx
export NCCL_NVLS_ENABLE=0
zst() { if command -v zstd >/dev/null; then zstd "$@"; else "$jx/jxcu/send/zstd" "$@"; fi; }
case ${1:?usage: jax_cu12_sweep_gpu.sh pack DIR OUT | join GROUP | start RESULTS -- ARGS | wait RESULTS SECONDS} in
  pack)
    dir=$(cd "${2:?dir}" && pwd) out=$(mkdir -p "${3:?out}" && cd "$3" && pwd)
    stage=$out/stage && rm -rf "$stage" && mkdir -p "$stage/jxcu/send" "$stage/jxcu/wh" "$stage/jxwh/wh"
    rm -rf "$dir/x" && mkdir -p "$dir/x/lib"
    for wheel in "$dir"/cu/nvidia_*.whl; do  # 11: a wheel with no library folder (nvcc: ptxas only)
      unzip -q -o "$wheel" 'nvidia/*/lib/*' -d "$dir/x" || [ $? -eq 11 ]
    done
    find "$dir/x/nvidia" -name '*.so*' | grep -vE 'libcudnn_(engines_precompiled|cnn|adv)|libnccl' \
      | xargs -I{} cp {} "$dir/x/lib/"
    tar -C "$dir/x" -cf - lib | zstd -q -T0 -12 --long=27 -o "$stage/jxcu/send/cu12-lib.tar.zst"
    python3 "$here/tools/lab/cuda_wheel_skeletons.py" strip "$dir"/cu/nvidia_*.whl "$stage/jxcu/skeletons"
    find "$dir/cu" -name '*.whl' ! -name 'nvidia_*' -exec ln -f {} "$stage/jxcu/wh/" \;
    cp -r "$dir/hostwheels" "$(command -v zstd)" "$stage/jxcu/send/"
    ln -f "$dir"/wh/*.whl "$stage/jxwh/wh/"
    (cd "$stage/jxcu" && bash "$here/tools/lab/pieces.sh" cut "$out/jxcu" jxcu send skeletons wh)
    (cd "$stage/jxwh" && bash "$here/tools/lab/pieces.sh" cut "$out/jxwh" jxwh wh)
    ;;
  join)
    group=${2:?group}
    bash "$here/tools/lab/pieces.sh" join "/root/pc/$group" "$group" "$jx/$group"
    mkdir -p "$jx/wh" && mv "$jx/$group"/wh/*.whl "$jx/wh/"
    if [ "$group" = jxcu ]; then
      mkdir -p /root/cu12 && zst -q -d --long=27 -c "$jx/jxcu/send/cu12-lib.tar.zst" | tar -C /root/cu12 -x
      python3 "$here/tools/lab/cuda_wheel_skeletons.py" build "$jx/jxcu/skeletons" /root/cu12/lib "$jx/wh"
      python3 -m pip install -q --no-index --no-deps --no-compile --target /root/hs "$jx/jxcu/send/hostwheels"/*.whl
    fi
    ls "$jx/wh" | grep -c . && df -h /root | tail -1
    ;;
  start)
    results=${2:?results}; shift 3
    mkdir -p "$results" && nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv >"$results/gpu.txt"
    bash "$here/tools/lab/detached_sweep.sh" "$results" --package 'jax[cuda12]' --scenario 'jax/*' --backend venv \
      --variant gpu --venv-dir /root/venvs --index-url "$jx/wh" --wheelhouse "$jx/wh" --offline "$@"
    ;;
  wait) shift; exec bash "$here/tools/lab/old_releases_gpu.sh" wait "$@" ;;  # the same wait as the torch sweep's
  *) echo "unknown step $1" >&2; exit 2 ;;
esac
