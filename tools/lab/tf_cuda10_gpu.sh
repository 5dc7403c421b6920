#!/usr/bin/env bash
# TensorFlow 1.15 and 2.0-2.3 (built for CUDA 10.0 and 10.1 and cuDNN 7, with compute_70 PTX the driver
# JIT-compiles for sm_90) swept on a lent GPU machine (no network, no Docker, Python 3.12 only), each release in a
# virtualenv of a carried Python 3.7 (the one Python all five have wheels for) that the venv backend makes offline
# from a carried wheelhouse: its pins; CUDA 10.1 from Ubuntu's packages and cuDNN 7 from cupy-cuda101's wheel (the
# registry's `venv_libraries`, looked for in the wheelhouse by file name); cuBLAS 11.11 as libcublas.so.10 (and
# 1.15-2.0 every library under CUDA 10.0's name: `venv_cuda`, `venv_aliases`). The wheels travel unpacked and
# zstd-compressed (common.sh), each release in its own group, so that the first can run while the next travel.
#
# Here (PyPI and Ubuntu's archive reachable):
#   fetch DIR                  DIR/wh: each release's pins for Python 3.7 (gast 0.2.2, which 1.15-2.1 pin, built
#                              as a wheel: PyPI has its source only), nvidia-cublas-cu11 11.11.3.6, cupy-cuda101
#                              7.8.0 cut to its libcudnn.so.7 and metadata (what the virtualenv takes of it);
#                              DIR/debs: the CUDA 10.1 packages; DIR/hostwheels: the harness's dependencies for
#                              the GPU host's Python 3.12; DIR/py37.tar.xz: this machine's pyenv Python 3.7
#   pack DIR OUT               OUT/base (every wheel but TensorFlow's, the packages, Python 3.7, the host wheels,
#                              a zstd binary) and OUT/tf-RELEASE (TensorFlow's wheel), each cut into pieces
#                              (2.1-2.3 measured: a base of 29 pieces, 714 MB; 6-8 pieces a release)
# There, one piece per call (pieces.sh collect into /root/pc/GROUP), then:
#   join GROUP                 checked and unpacked; the wheels zipped again into /root/t10/wh and the packages
#                              beside them; base: Python 3.7 where pyenv keeps it, the host wheels in /root/hs
#   queue RESULTS PIN...       in the background (its own session): each PKG==VERSION once its wheel is there, its
#                              PTX compiled on every core first (ptx_prewarm.py), then swept alone
#   wait RESULTS SECONDS       wait up to SECONDS for the queue, then say where it is
set -euo pipefail
source "$(dirname "$0")/common.sh"
t10=/root/t10
PY37=3.7.16
PINS=(tensorflow-gpu==1.15.5 tensorflow-gpu==2.0.4 tensorflow==2.1.4 tensorflow==2.2.3 tensorflow==2.3.4)
wheels_of() { local pin=$1; echo "${pin%%==*}" | tr - _; }  # a pin's wheel files: NAME-VERSION-*.whl
CUDA101=(libcudart10.1 libcufft10 libcurand10 libcusolver10 libcusparse10)
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1 LAB_ZSTD=$t10/base/send/zstd CUDA_CACHE_MAXSIZE=4294967296
case ${1:?usage: tf_cuda10_gpu.sh fetch DIR | pack DIR OUT | join GROUP | queue RESULTS PIN... | wait RESULTS SECONDS} in
  fetch)
    dir=$(mkdir -p "${2:?dir}" && cd "$2" && pwd)
    py=/root/.pyenv/versions/$PY37/bin/python
    mkdir -p "$dir/wh" "$dir/debs" "$dir/hostwheels" "$dir/raw"
    python3 -m pip wheel -q --no-deps -w "$dir/wh" gast==0.2.2
    for pin in "${PINS[@]}"; do
      "$py" -m pip download -q --only-binary=:all: --find-links "$dir/wh" -d "$dir/wh" "$pin" "protobuf<3.20" "numpy<1.24"
    done
    "$py" -m pip download -q --only-binary=:all: --no-deps -d "$dir/wh" nvidia-cublas-cu11==11.11.3.6
    "$py" -m pip download -q --only-binary=:all: --no-deps -d "$dir/raw" cupy-cuda101==7.8.0
    python3 - "$dir" <<'PY'
import glob, os, sys, zipfile
folder = sys.argv[1]
(src,) = glob.glob(os.path.join(folder, "raw", "cupy_cuda101-7.8.0-*.whl"))
with zipfile.ZipFile(src) as wheel, zipfile.ZipFile(os.path.join(folder, "wh", os.path.basename(src)), "w") as out:
    for name in wheel.namelist():  # what the virtualenv takes of it, and what pip reads to download it
        if name == "cupy/.data/lib/libcudnn.so.7" or ".dist-info/" in name:
            out.writestr(wheel.getinfo(name), wheel.read(name), zipfile.ZIP_DEFLATED)
PY
    for package in "${CUDA101[@]}"; do
      curl -sfo "$dir/debs/${package}_10.1.243-3_amd64.deb" \
        "http://archive.ubuntu.com/ubuntu/pool/multiverse/n/nvidia-cuda-toolkit/${package}_10.1.243-3_amd64.deb"
    done
    python3 -m pip download -q --only-binary=:all: --python-version 3.12 --platform manylinux2014_x86_64 \
      --platform manylinux_2_17_x86_64 --platform manylinux_2_28_x86_64 -d "$dir/hostwheels" \
      "rich>=13" "nvidia-ml-py>=12.535" "docker>=7" "packaging>=23" "filelock>=3.12" "jsonschema>=4.18" "jinja2>=3.1" \
      "pydantic>=2.6"
    tar -C /root/.pyenv/versions -cf - --exclude=__pycache__ --exclude="$PY37/lib/python3.7/test" \
      --exclude="$PY37/lib/python3.7/idlelib" --exclude="$PY37/lib/python3.7/tkinter" "$PY37" | xz -T0 -6 >"$dir/py37.tar.xz"
    du -sh "$dir/wh" "$dir/debs" "$dir/hostwheels" "$dir/py37.tar.xz"
    ;;
  pack)
    dir=$(cd "${2:?dir}" && pwd) out=$(mkdir -p "${3:?out}" && cd "$3" && pwd)
    stage=$out/stage/base && rm -rf "$stage" && mkdir -p "$stage/send"
    lab_pack_unpacked "$stage/wheels.tar.zst" $(find "$dir/wh" -name '*.whl' ! -name 'tensorflow-*' ! -name 'tensorflow_gpu-*' | sort)
    cp -r "$dir/debs" "$dir/hostwheels" "$dir/py37.tar.xz" "$(command -v zstd)" "$stage/send/"
    (cd "$stage" && bash "$lab_here/tools/lab/pieces.sh" cut "$out/base" base wheels.tar.zst send)
    for pin in "${PINS[@]}"; do
      release=${pin##*==} && stage=$out/stage/tf-$release && rm -rf "$stage" && mkdir -p "$stage"
      lab_pack_unpacked "$stage/wheels.tar.zst" "$dir/wh/$(wheels_of "$pin")-$release"-*.whl
      (cd "$stage" && bash "$lab_here/tools/lab/pieces.sh" cut "$out/tf-$release" "tf-$release" wheels.tar.zst)
    done
    ;;
  join)
    group=${2:?group}
    bash "$lab_here/tools/lab/pieces.sh" join "/root/pc/$group" "$group" "$t10/$group"
    if [ -d "$t10/$group/send" ]; then  # the base: what the rest needs, before its wheels are zipped
      mkdir -p /root/.pyenv/versions "$t10/wh"
      tar -C /root/.pyenv/versions -xJf "$t10/$group/send/py37.tar.xz"
      cp "$t10/$group"/send/debs/*.deb "$t10/wh/"
      python3 -m pip install -q --no-index --no-deps --no-compile --target /root/hs "$t10/$group"/send/hostwheels/*.whl
    fi
    lab_rezip "$t10/$group/wheels.tar.zst" "$t10/wh" >/dev/null  # each wheel appears whole, where the queue looks
    ls "$t10/wh" | grep -c . && df -h /root | tail -1
    ;;
  queue)
    results=${2:?results}; shift 2
    src=/root/src-t10 && lab_queue_copy "$src" "$results"
    cd "$src" && LAB_SRC=$src setsid nohup bash -c "$(declare -f lab_harness); \
for pin in $*; do \
  package=\${pin%%==*}; release=\${pin##*==}; wheel=$t10/wh/\$(echo \$package | tr - _)-\$release-*.whl; \
  echo \"\$(date +%T) \$pin: waiting for its wheel\"; \
  for _ in \$(seq 1 1800); do compgen -G \"\$wheel\" >/dev/null && break; sleep 1; done; \
  rm -rf /root/warm && mkdir -p /root/warm && unzip -q -o \$wheel '*.so*' -d /root/warm; \
  echo \"\$(date +%T) \$pin: its PTX compiled on every core\"; \
  python3 $src/tools/lab/ptx_prewarm.py \$(find /root/warm -name '*.so*') >'$results/prewarm-'\$release.txt 2>&1; \
  echo \"\$(date +%T) \$pin: sweep\"; \
  lab_harness sweep --results '$results' --package \$package --from \$release --to \$release --backend venv \
    --variant gpu --venv-dir /root/venvs --index-url $t10/wh --wheelhouse $t10/wh --offline --repeat 1 \
    --setenv CUDA_CACHE_MAXSIZE=$CUDA_CACHE_MAXSIZE; \
  echo \"\$(date +%T) \$pin: done (\$?)\"; \
done; touch '$results/queue.done'" >"$results/queue.log" 2>&1 </dev/null &
    ;;
  wait) lab_queue_wait "${2:?results}" "${3:?seconds}" ;;
  *) echo "unknown step $1" >&2; exit 2 ;;
esac
