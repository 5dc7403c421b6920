#!/usr/bin/env bash
# torch 2.2-2.10 (PyPI's CUDA 12 builds, sm_90 code in each) swept on a lent GPU machine (no network, no Docker,
# CUDA 13 libraries only, Python 3.12): each release in a virtualenv the venv backend makes offline from a carried
# wheelhouse, with the exact nvidia-*-cu12 and triton pins its metadata names, as PyPI serves them. One group of
# releases shares most of those pins (2.8.0-2.10.0: CUDA 12.8); its wheels travel unpacked in one zstd tar
# ordered by file name (common.sh), where the releases' libraries compress against each other.
#
# Here (PyPI reachable), after `pip download --python-version 3.12` of each torch==RELEASE with its dependencies
# into DIR/wh, and of the harness's own dependencies into DIR/hostwheels (a release without wheels for the host's
# Python, torch 2.0-2.1 for 3.11: `--python-version 3.11`, and a CPython built by pyenv here as DIR/py3.11.N.tar.xz,
# unpacked there where pyenv keeps its versions, so the venv backend finds it as on any machine with pyenv):
#   pack DIR OUT             OUT/t12: the wheels (one zstd tar), hostwheels and a zstd binary, cut into pieces
# There, one piece per call (pieces.sh collect into /root/pc/t12), then:
#   join                     checked and unpacked; the wheels zipped again into /root/t12/wh, the harness's
#                            dependencies into /root/hs
#   queue RESULTS PIN...     each PKG==VERSION swept alone, one after another, in the background (its own session)
#   wait RESULTS SECONDS     wait up to SECONDS for the queue, then say where it is
set -euo pipefail
source "$(dirname "$0")/common.sh"
t12=/root/t12
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1 LAB_ZSTD=$t12/g/send/zstd
case ${1:?usage: torch_cu12_history_gpu.sh pack DIR OUT | join | queue RESULTS PIN... | wait RESULTS SECONDS} in
  pack)
    dir=$(cd "${2:?dir}" && pwd) out=$(mkdir -p "${3:?out}" && cd "$3" && pwd)
    stage=$out/stage && rm -rf "$stage" && mkdir -p "$stage/send"
    lab_pack_unpacked "$stage/wheels.tar.zst" "$dir"/wh/*.whl
    cp -r "$dir/hostwheels" "$(command -v zstd)" "$stage/send/"
    cp "$dir"/py*.tar.xz "$stage/send/" 2>/dev/null || true
    (cd "$stage" && bash "$lab_here/tools/lab/pieces.sh" cut "$out/t12" t12 wheels.tar.zst send)
    ;;
  join)
    bash "$lab_here/tools/lab/pieces.sh" join /root/pc/t12 t12 "$t12/g"
    lab_rezip "$t12/g/wheels.tar.zst" "$t12/wh" | wc -l
    python3 -m pip install -q --no-index --no-deps --no-compile --target /root/hs "$t12/g/send/hostwheels"/*.whl
    mkdir -p /root/.pyenv/versions && for py in "$t12"/g/send/py*.tar.xz; do if [ -e "$py" ]; then tar -C /root/.pyenv/versions -xJf "$py"; fi; done
    ls /root/.pyenv/versions
    df -h /root | tail -1
    ;;
  queue)
    results=${2:?results}; shift 2
    src=/root/src-t12 && lab_queue_copy "$src" "$results"
    cd "$src" && LAB_SRC=$src setsid nohup bash -c "$(declare -f lab_harness); \
for pin in $*; do lab_harness sweep --results '$results' --package \${pin%%==*} --from \${pin##*==} --to \${pin##*==} \
  --backend venv --variant gpu --venv-dir /root/venvs --index-url $t12/wh --wheelhouse $t12/wh --offline --repeat ${REPEAT:-1}; \
done; touch '$results/queue.done'" >"$results/queue.log" 2>&1 </dev/null &
    ;;
  wait) lab_queue_wait "${2:?results}" "${3:?seconds}" ;;
  *) echo "unknown step $1" >&2; exit 2 ;;
esac
