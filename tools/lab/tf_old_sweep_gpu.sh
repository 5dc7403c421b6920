#!/usr/bin/env bash
# TensorFlow 2.8-2.13 swept on a lent GPU machine (no network, no Docker, Python 3.12 only), every
# tf2 scenario, each release in a virtualenv of Python 3.8 (the Python its CUDA base has up to 2.11;
# 2.12-2.13 have wheels for it too) with CUDA 11.8 and cuDNN 8.7 from NVIDIA's pip wheels on
# LD_LIBRARY_PATH, as TensorFlow's own install notes for 2.12-2.13 do. CUDA_MODULE_LOADING=LAZY: the
# PTX these releases carry for pre-Hopper GPUs is JIT-compiled per kernel used (every setting is in
# each record's setenv). Since this sweep the venv backend installs those wheels itself for 2.5-2.13
# (the framework registry's venv_cuda): with today's harness put DIR/cu's wheels in the wheelhouse too
# (1.6 GB more to carry), and the --setenv LD_LIBRARY_PATH below only comes first.
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
# There, one piece per call, then:
#   join GROUP               checked and unpacked into /root/tfo; a release's wheel zipped again (stored:
#                            the same files, so the same RECORD) into /root/tfo/wh under its own name
#   setup RESULTS            the Python where pyenv keeps it, the CUDA libraries in /root/cuda11/lib,
#                            the harness's wheels in /root/hs
#   start RESULTS -- ARGS    the sweep in the background (its own session: it outlives the call)
#   wait RESULTS SECONDS     wait up to SECONDS for the sweep, then say where it is
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
tfo=/root/tfo
export NCCL_NVLS_ENABLE=0
zst() { if command -v zstd >/dev/null; then zstd "$@"; else "$tfo/base/send/zstd" "$@"; fi; }
case ${1:?usage: tf_old_sweep_gpu.sh pack DIR OUT RELEASE... | join GROUP | setup RESULTS | start RESULTS -- ARGS | wait RESULTS SECONDS} in
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
    for release in "$@"; do
      wheel=$(ls "$dir"/wh/tensorflow-"$release"-*.whl)
      mkdir -p "$stage/$release" && rm -rf "$dir/x" && mkdir -p "$dir/x"
      (cd "$dir/x" && unzip -q "$wheel" && tar -cf - . | zstd -q -T0 -12 --long=27 -o "$stage/$release/tf.tar.zst")
      basename "$wheel" >"$stage/$release/name"
      (cd "$stage/$release" && bash "$here/tools/lab/pieces.sh" cut "$out/$release" "$release" name tf.tar.zst)
    done
    ;;
  join)
    group=${2:?group}
    bash "$here/tools/lab/pieces.sh" join "/root/pc/$group" "$group" "$tfo/$group"
    mkdir -p "$tfo/wh"
    if [ "$group" = base ]; then
      mv "$tfo/base"/wh/*.whl "$tfo/wh/"
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
    export CUDA_CACHE_MAXSIZE=4294967296 PYTHONUNBUFFERED=1
    # from a copy: the checkout is replaced at every call, the sweep outlives it
    rm -rf /root/src && mkdir -p /root/src "$results" && (cd "$here" && tar --exclude=./.lab -cf - .) | tar -C /root/src -x
    cd /root/src && setsid nohup python3 -c "import sys, runpy; sys.path[:0] = ['/root/hs', '/root/src']; \
sys.argv = ['harness'] + sys.argv[1:]; runpy.run_module('harness', run_name='__main__')" \
      sweep --package tensorflow --backend venv --variant gpu --venv-dir /root/venvs --index-url "$tfo/wh" \
      --wheelhouse "$tfo/wh" --offline --setenv LD_LIBRARY_PATH=/root/cuda11/lib --setenv CUDA_MODULE_LOADING=LAZY \
      --setenv CUDA_CACHE_MAXSIZE=4294967296 --results "$results" "$@" >"$results/sweep.log" 2>&1 </dev/null &
    ;;
  wait) shift; exec bash "$here/tools/lab/old_releases_gpu.sh" wait "$@" ;;  # the same wait as the torch sweep's
  *) echo "unknown step $1" >&2; exit 2 ;;
esac
