#!/usr/bin/env bash
# Here, where PyPI and Debian answer: TensorFlow 1.8 for a Hopper GPU machine (tf18_rows.sh), cut
# into pieces that fit one call's carry beside the checkout. TF 1.8 is built for CUDA 9.0 with PTX
# for compute_70, which the driver JIT-compiles for sm_90; what it links must say CUDA 9.0:
#   - libcudart, libcurand .so.9.0 and libcudnn.so.7 (7.0.4): from cntk-gpu 2.6's wheel, which
#     bundled NVIDIA's own CUDA 9.0 libraries (no other PyPI wheel carries them as files);
#   - libcublas, libcusolver, libcufft .so.9.0: stand-ins made by make_shim.py that forward every
#     function TF 1.8 binds (181, 59, 19, each versioned after the 9.0 soname) to CUDA 11's
#     libraries from NVIDIA's wheels (cuBLAS 11.11.3.6 has Hopper kernels; 9.0's has none for
#     large GEMMs, and no cuFFT or cuSOLVER 9.0 exists on PyPI);
#   - the stand-in for tensorflow/tensorflow:1.8.0-gpu: tf18_standin/Dockerfile on python:2.7-slim.
# Usage: tests/gpu/tf18_pieces.sh OUT_DIR   -> OUT_DIR/pieces/tf18.tar.NNN (50 MiB) + OUT_DIR/pieces.sha256
# Needs docker with the python:2.7-slim and harness-ci/python2.7-bare images (.ci/make-bases.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(mkdir -p "${1:?usage: tf18_pieces.sh OUT_DIR}" && cd "$1" && pwd)
cd "$out" && mkdir -p wh cuda11 cntk ctx/lib
py27=(--python-version 2.7 --implementation cp --abi cp27mu --platform manylinux1_x86_64)
pip download -q --no-deps --only-binary=:all: "${py27[@]}" -d wh "tensorflow-gpu==1.8.0"
pip download -q --no-deps --only-binary=:all: "${py27[@]}" -d cntk "cntk-gpu==2.6"
# the rest of TF 1.8's requirements as wheels for Python 2.7 (some exist only as sources there)
docker run --rm -v "$out/wh:/wh" python:2.7-slim pip wheel -q --prefer-binary --find-links /wh -w /wh tensorflow-gpu==1.8.0
pip download -q --no-deps --only-binary=:all: --python-version 3.9 --platform manylinux2014_x86_64 -d cuda11 \
  nvidia-cublas-cu11==11.11.3.6 nvidia-cusolver-cu11==11.4.1.48 nvidia-cusparse-cu11==11.7.5.86 nvidia-cufft-cu11==10.9.0.58
(cd cntk && unzip -q -o ./*.whl 'cntk/libs/libcudart.so.9.0' 'cntk/libs/libcurand.so.9.0' 'cntk/libs/libcudnn.so.7')
cp cntk/cntk/libs/* ctx/lib/
(cd cuda11 && for w in ./*.whl; do unzip -q -o "$w" 'nvidia/*/lib/*.so.*'; done)
cp cuda11/nvidia/cublas/lib/libcublas.so.11 cuda11/nvidia/cublas/lib/libcublasLt.so.11 cuda11/nvidia/cusolver/lib/libcusolver.so.11 \
  cuda11/nvidia/cusparse/lib/libcusparse.so.11 cuda11/nvidia/cufft/lib/libcufft.so.10 ctx/lib/
# the functions TF 1.8 binds from each 9.0 library, by version
(cd wh && unzip -q -o tensorflow_gpu-1.8.0-*.whl '*.so' -d tf)
find wh/tf -name '*.so' -exec readelf --dyn-syms -W {} \; | awk '$7 == "UND" {print $8}' | sort -u >needed.txt
mkdir -p shim && cp "$here/tf18_standin/make_shim.py" shim/
for lib in cublas cusolver cufft; do grep "@lib$lib.so.9.0" needed.txt | sed 's/@.*//' >"shim/$lib.txt"; done
rm -rf wh/tf
# compiled on Debian bullseye (glibc 2.31), the stand-in's own system
docker run --rm -v "$out/shim:/s" -w /s harness-ci/python2.7-bare sh -c 'apt-get update -qq >/dev/null &&
  apt-get install -y -qq gcc libc6-dev python3-minimal >/dev/null &&
  python3 make_shim.py libcublas.so.9.0 libcublas.so.11 cublas.txt out &&
  python3 make_shim.py libcusolver.so.9.0 libcusolver.so.11 cusolver.txt out &&
  python3 make_shim.py libcufft.so.9.0 libcufft.so.10 cufft.txt out'
cp shim/out/*.so.9.0 ctx/lib/
cp "$here/tf18_standin/Dockerfile" ctx/
docker build -q -t harness-gpu/tf18-hopper-standin ctx
docker save harness-gpu/tf18-hopper-standin | xz -T0 -4 >standin.tar.xz
bash "$here/pieces.sh" cut "$out" tf18 wh standin.tar.xz
