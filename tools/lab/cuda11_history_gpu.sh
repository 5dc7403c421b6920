#!/usr/bin/env bash
# CuPy 8-13 and TensorFlow 2.3-2.4 on a lent GPU machine (no network, no Docker, Python 3.12 only), all on one
# CUDA: 11.8's libraries from NVIDIA's wheels, which the venv backend installs itself (the registry's
# `venv_cuda`, with `venv_aliases` for the sonames TF 2.3-2.4 load under older names). Builds on
# tf_old_sweep_gpu.sh: its `base` (Python 3.8, CUDA 11.8's libraries, small wheels) and `wh2` (the cu11 wheels'
# skeletons) groups, joined and set up by its own steps. CuPy's wheels and each TensorFlow travel unpacked and
# zstd-compressed (a third to two fifths smaller than the wheels' deflate), zipped again there with the same files.
#   pack CUPY TF OUT        here: OUT/c11 (CUPY/cu's NVRTC wheel, CUPY/wh's and TF/new's small wheels),
#                           OUT/cupy (CUPY/wh's CuPy wheels) and OUT/tf-RELEASE (TF/new's TensorFlow wheels)
#   join GROUP              there: checked, unpacked into /root/tfo/GROUP, its wheels into /root/tfo/wh
#   cupy RESULTS            there: `harness history` of the CUDA 11 CuPy sweeps (history.toml), in the background
#   queue RESULTS PIN...    there: once no history runs, `harness sweep` of each PKG==VERSION alone, likewise
#   probe RELEASE           there: `harness repro` of tools/lab/tf_gpu_probe.py on one TensorFlow release, likewise
set -euo pipefail
source "$(dirname "$0")/common.sh"
here=$lab_here
tfo=/root/tfo
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1 LAB_ZSTD=$tfo/base/send/zstd  # tf_old_sweep_gpu.sh's base carries one
OFFLINE=(--backend venv --variant gpu --venv-dir /root/venvs --index-url "$tfo/wh" --wheelhouse "$tfo/wh" --offline
         --setenv CUDA_CACHE_MAXSIZE=4294967296)
unpacked() {  # unpacked OUT NAME WHEEL...: the wheels unpacked side by side, one zstd tar, cut into pieces
  local out=$1 name=$2 stage=$1/stage/$2; shift 2
  rm -rf "$stage" && mkdir -p "$stage" && lab_pack_unpacked "$stage/wheels.tar.zst" "$@"
  (cd "$stage" && bash "$here/tools/lab/pieces.sh" cut "$out/$name" "$name" wheels.tar.zst)
}
case ${1:?usage: cuda11_history_gpu.sh pack CUPY TF OUT | join GROUP | cupy RESULTS | queue RESULTS PIN... | probe RELEASE} in
  pack)
    cupy=$(cd "${2:?cupy}" && pwd) tf=$(cd "${3:?tf}" && pwd) out=$(mkdir -p "${4:?out}" && cd "$4" && pwd)
    stage=$out/stage/c11 && rm -rf "$stage" && mkdir -p "$stage/wh"
    cp "$cupy"/cu/*.whl "$stage/wh/"
    find "$cupy/wh" "$tf/new" -name '*.whl' ! -name 'cupy_*' ! -name 'tensorflow-*' -exec cp {} "$stage/wh/" \;
    (cd "$stage" && bash "$here/tools/lab/pieces.sh" cut "$out/c11" c11 wh)
    unpacked "$out" cupy "$cupy"/wh/cupy_*.whl
    for wheel in "$tf"/new/tensorflow-*.whl; do unpacked "$out" "tf-$(basename "$wheel" | cut -d- -f2)" "$wheel"; done
    ;;
  join)
    group=${2:?group}
    [ ! -d "/root/pc/$group" ] || bash "$here/tools/lab/pieces.sh" join "/root/pc/$group" "$group" "$tfo/$group"
    mkdir -p "$tfo/wh"
    if [ -d "$tfo/$group/wh" ]; then mv "$tfo/$group"/wh/*.whl "$tfo/wh/"; fi
    if [ -f "$tfo/$group/wheels.tar.zst" ]; then lab_rezip "$tfo/$group/wheels.tar.zst" "$tfo/wh"; fi
    ls "$tfo/wh" | grep -c . && df -h /root | tail -1
    ;;
  cupy)
    results=${2:?results}
    mkdir -p "$results" && rm -rf /root/src && mkdir -p /root/src
    (cd "$here" && tar --exclude=./.lab -cf - .) | tar -C /root/src -x
    cd /root/src && LAB_SRC=/root/src setsid nohup bash -c "$(declare -f lab_harness); \
lab_harness history --results '$results' --only cupy-cuda112 --only cupy-cuda11x ${OFFLINE[*]} --repeat 1" \
      >"$results/history.log" 2>&1 </dev/null &
    ;;
  queue)  # after the history: each PKG==VERSION swept alone (TensorFlow with CUDA_MODULE_LOADING=LAZY, as before);
    # QUEUE_AFTER: a pgrep pattern of an earlier queue to wait for too; QUEUE_ARGS: more sweep arguments
    results=${2:?results}; shift 2
    src=/root/src-$(basename "$results")
    mkdir -p "$results" && rm -rf "$src" && mkdir -p "$src"
    (cd "$here" && tar --exclude=./.lab -cf - .) | tar -C "$src" -x
    cd "$src" && LAB_SRC=$src setsid nohup bash -c "$(declare -f lab_harness); \
while pgrep -f '[h]istory --results' >/dev/null || pgrep -f '${QUEUE_AFTER:-^$}' >/dev/null; do sleep 5; done; \
for pin in $*; do lazy=; case \$pin in tensorflow*) lazy='--setenv CUDA_MODULE_LOADING=LAZY';; esac; \
  lab_harness sweep --results '$results' --package \${pin%%==*} --from \${pin##*==} --to \${pin##*==} ${OFFLINE[*]} \
  \$lazy --repeat 1 ${QUEUE_ARGS:-}; done" >"$results/queue.log" 2>&1 </dev/null &
    ;;
  probe)  # in the background, from its own copy of the checkout: /root/probe/probe.log
    release=${2:?release}
    rm -rf /root/srcp /root/probe && mkdir -p /root/srcp /root/probe
    (cd "$here" && tar --exclude=./.lab -cf - .) | tar -C /root/srcp -x
    cd /root/srcp && LAB_SRC=/root/srcp setsid nohup timeout 600 bash -c "$(declare -f lab_harness); \
lab_harness repro /root/srcp/tools/lab/tf_gpu_probe.py --with tensorflow==$release ${OFFLINE[*]} \
  --setenv CUDA_MODULE_LOADING=LAZY --results /root/probe" >/root/probe/probe.log 2>&1 </dev/null &
    ;;
  *) echo "unknown step $1" >&2; exit 2 ;;
esac
