#!/usr/bin/env bash
# TensorFlow 2.5-2.13 swept on a lent GPU machine (no network, no Docker, Python 3.12 only), every
# tf2 scenario, each release in a virtualenv of Python 3.8 (the Python its CUDA base has up to 2.11;
# 2.12-2.13 have wheels for it too) with CUDA 11.8 and cuDNN 8.7 from NVIDIA's pip wheels, as
# TensorFlow's own install notes for 2.12-2.13 do. CUDA_MODULE_LOADING=LAZY: the PTX these releases
# carry for pre-Hopper GPUs is JIT-compiled per kernel used (every setting is in each record's setenv).
# The venv backend installs those wheels itself (the framework registry's venv_cuda) and puts their
# folders on the cells' LD_LIBRARY_PATH; their libraries travel once in the base and the wheels as
# skeletons (cuda_wheel_skeletons.py), rebuilt there by `cuwheels`. The 2.9-2.13 sweep ran before
# that, with TF_OLD_SETENV='--setenv LD_LIBRARY_PATH=/root/cuda11/lib' and no CUDA wheels.
#
# Here (PyPI reachable), after `pip download` of each release's pins for cp38 into DIR/wh and of the
# seven nvidia-*-cu11 wheels into DIR/cu (pip download for another Python skipped what markers on
# python_full_version add: importlib-metadata 8.5.0 and zipp 3.20.2 had to be added, and cryptography
# 43.0.3, since 46 wants typing-extensions >= 4.13.2 where TF 2.13 pins < 4.6):
#   pack DIR OUT RELEASE...  OUT/base (a pyenv-built CPython 3.8, the CUDA 11 libraries without cuDNN's
#                            convolution and RNN parts (Dense layers never load them), every small
#                            wheel, the harness's own wheels, a zstd binary) and OUT/<release> (its
#                            TensorFlow wheel unpacked and zstd-compressed: a third smaller than the
#                            wheel's own deflate), each cut into pieces (pieces.sh)
#   more DIR OUT GROUP RELEASE...  later releases beside a base already cut: DIR/wh's small wheels
#                            that OUT/base lacks (DIR/built: wheels built here for Python 3.8 where
#                            PyPI has only a source archive: clang 5.0, termcolor 1.1.0 and wrapt
#                            1.12.1 for 2.5-2.6, jax 0.4.13 for 2.12) as OUT/GROUP, each RELEASE as pack
#                            cuts it; DIR/skeletons (cuda_wheel_skeletons.py strip of the seven
#                            cu11 wheels: what the virtualenv backend installs for 2.5-2.13) with them
# There, one piece per call, then:
#   join GROUP               checked and unpacked into /root/tfo; a release's wheel zipped again (stored:
#                            the same files, so the same RECORD) into /root/tfo/wh under its own name
#   setup RESULTS            the Python where pyenv keeps it, the CUDA libraries in /root/cuda11/lib,
#                            the harness's wheels in /root/hs
#   cuwheels GROUP           the cu11 wheels from GROUP's skeletons and /root/cuda11/lib, into the wheelhouse
#   start RESULTS -- ARGS    the sweep in the background (its own session: it outlives the call)
#   wait RESULTS SECONDS     wait up to SECONDS for the sweep, then say where it is
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
tfo=/root/tfo
export NCCL_NVLS_ENABLE=0
zst() { if command -v zstd >/dev/null; then zstd "$@"; else "$tfo/base/send/zstd" "$@"; fi; }
cut_release() {  # cut_release DIR OUT RELEASE: its wheel unpacked, zstd-compressed, cut
  local dir=$1 out=$2 release=$3 stage=$2/stage/$3 wheel
  wheel=$(ls "$dir"/wh/tensorflow-"$release"-*.whl)
  rm -rf "$stage" "$dir/x" && mkdir -p "$stage" "$dir/x"
  (cd "$dir/x" && unzip -q "$wheel" && tar -cf - . | zstd -q -T0 -12 --long=27 -o "$stage/tf.tar.zst")
  basename "$wheel" >"$stage/name"
  (cd "$stage" && bash "$here/tools/lab/pieces.sh" cut "$out/$release" "$release" name tf.tar.zst)
}
case ${1:?usage: tf_old_sweep_gpu.sh pack DIR OUT RELEASE... | more DIR OUT GROUP RELEASE... | join GROUP | setup RESULTS | cuwheels GROUP | start RESULTS -- ARGS | wait RESULTS SECONDS} in
  pack)
    dir=$(cd "${2:?dir}" && pwd) out=$(mkdir -p "${3:?out}" && cd "$3" && pwd); shift 3
    stage=$out/stage && rm -rf "$stage" && mkdir -p "$stage/base/send" "$stage/base/wh"
    rm -rf "$dir/cuda11" && mkdir -p "$dir/cuda11/lib" "$dir/x"
    for wheel in "$dir"/cu/*.whl; do unzip -q -o "$wheel" 'nvidia/*/lib/*' -d "$dir/x"; done
    find "$dir/x" -name '*.so*' | grep -vE 'libcudnn_(cnn|adv)|libcusolverMg|libcufftw|libnvblas|libOpenCL' \
      | xargs -I{} cp {} "$dir/cuda11/lib/"
    tar -C "$dir/cuda11" -cf - lib | zstd -q -T0 -12 --long=27 -o "$stage/base/send/cuda11-lib.tar.zst"
    cp "$dir/py38.tar.xz" "$(command -v zstd)" "$stage/base/send/"
    cp -r "$dir/hostwheels" "$stage/base/send/"
    find "$dir/wh" -name '*.whl' ! -name 'tensorflow-*' -exec ln -f {} "$stage/base/wh/" \;
    (cd "$stage/base" && bash "$here/tools/lab/pieces.sh" cut "$out/base" base send wh)
    for release in "$@"; do cut_release "$dir" "$out" "$release"; done
    ;;
  more)
    dir=$(cd "${2:?dir}" && pwd) out=$(cd "${3:?out}" && pwd) group=${4:?group}; shift 4
    stage=$out/stage/$group && rm -rf "$stage" && mkdir -p "$stage/wh"
    have=$(cat "$out"/base/pieces/base.tar.* | tar -t | sed -n 's|^wh/||p')
    for wheel in "$dir"/wh/*.whl "$dir"/built/*.whl; do
      name=$(basename "$wheel")
      case $name in tensorflow-[0-9]*) continue ;; esac
      grep -qxF "$name" <<<"$have" || ln -f "$wheel" "$stage/wh/"
    done
    parts=(wh)
    if [ -d "$dir/skeletons" ]; then cp -r "$dir/skeletons" "$stage/" && parts+=(skeletons); fi
    (cd "$stage" && bash "$here/tools/lab/pieces.sh" cut "$out/$group" "$group" "${parts[@]}")
    for release in "$@"; do cut_release "$dir" "$out" "$release"; done
    ;;
  join)
    group=${2:?group}
    bash "$here/tools/lab/pieces.sh" join "/root/pc/$group" "$group" "$tfo/$group"
    mkdir -p "$tfo/wh"
    if [ -d "$tfo/$group/wh" ]; then  # base or a group of small wheels
      mv "$tfo/$group"/wh/*.whl "$tfo/wh/"
    else
      rm -rf "$tfo/x" && mkdir -p "$tfo/x"
      zst -q -d --long=27 -c "$tfo/$group/tf.tar.zst" | tar -C "$tfo/x" -x
      python3 - "$tfo/x" "$tfo/wh/$(cat "$tfo/$group/name")" <<'PY'
import os, sys, zipfile
root, wheel = sys.argv[1:]
with zipfile.ZipFile(wheel + ".part", "w", zipfile.ZIP_STORED) as out:
    for folder, _, files in os.walk(root):
        for name in sorted(files):
            path = os.path.join(folder, name)
            out.write(path, os.path.relpath(path, root))
os.rename(wheel + ".part", wheel)
PY
      rm -rf "$tfo/x" "$tfo/$group/tf.tar.zst"
    fi
    ls "$tfo/wh" | grep -c . && df -h /root | tail -1
    ;;
  cuwheels)  # after setup: the cu11 wheels zipped again around the carried libraries, into the wheelhouse
    python3 "$here/tools/lab/cuda_wheel_skeletons.py" build "$tfo/${2:?group}/skeletons" /root/cuda11/lib "$tfo/wh"
    ;;
  setup)
    results=${2:?results}
    mkdir -p /root/.pyenv/versions /root/cuda11 "$results"
    tar -C /root/.pyenv/versions -xJf "$tfo/base/send/py38.tar.xz"
    zst -q -d --long=27 -c "$tfo/base/send/cuda11-lib.tar.zst" | tar -C /root/cuda11 -x
    python3 -m pip install -q --no-index --no-deps --no-compile --target /root/hs "$tfo/base/send/hostwheels"/*.whl
    nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv >"$results/gpu.txt"
    ls /root/.pyenv/versions /root/cuda11/lib && cat "$results/gpu.txt"
    ;;
  start)
    results=${2:?results}; shift 3
    export CUDA_CACHE_MAXSIZE=4294967296
    # shellcheck disable=SC2086  # TF_OLD_SETENV: more --setenv NAME=VALUE words
    bash "$here/tools/lab/detached_sweep.sh" "$results" --package tensorflow --backend venv --variant gpu \
      --venv-dir /root/venvs --index-url "$tfo/wh" --wheelhouse "$tfo/wh" --offline ${TF_OLD_SETENV:-} \
      --setenv CUDA_MODULE_LOADING=LAZY --setenv CUDA_CACHE_MAXSIZE=4294967296 "$@"
    ;;
  wait) shift; exec bash "$here/tools/lab/old_releases_gpu.sh" wait "$@" ;;  # the same wait as the torch sweep's
  *) echo "unknown step $1" >&2; exit 2 ;;
esac
