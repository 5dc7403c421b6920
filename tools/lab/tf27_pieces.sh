#!/usr/bin/env bash
# Here, where PyPI and Debian answer: everything tf27_rows.sh needs on a lent GPU machine (no
# network, no registry), cut into pieces that fit one call's carry beside the checkout.
#   wh/      tensorflow==2.7.4 with numpy<1.24, protobuf<3.20 (the committed gpu pins) and every
#            dependency, as pip resolves them for CPython 3.9 on manylinux
#   cuda/    CUDA 11 and cuDNN 8 from NVIDIA's PyPI wheels: what the real base,
#            nvidia/cuda:11.2.2-cudnn8-runtime-ubuntu20.04, holds under /usr/local/cuda
#   bullseye-py39.tar.xz   Debian bullseye (minbase, python3 3.9, python3-venv): the stand-in
#            base's system; its apt step is done here, since the machine has no archive
# Usage: tools/lab/tf27_pieces.sh OUT_DIR   -> OUT_DIR/pieces/tf27.tar.NNN (pieces.sh size) + OUT_DIR/pieces.sha256
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(mkdir -p "${1:?usage: tf27_pieces.sh OUT_DIR}" && cd "$1" && pwd)
cd "$out"
platforms=(--platform manylinux2014_x86_64 --platform manylinux2010_x86_64 --platform manylinux_2_17_x86_64
           --platform manylinux1_x86_64)
pip download -q --only-binary=:all: --python-version 3.9 --implementation cp "${platforms[@]}" -d wh \
  "tensorflow==2.7.4" "numpy<1.24" "protobuf<3.20"
# markdown (tensorboard's) needs importlib-metadata below Python 3.10, which pip does not fetch for
# a target version other than its own
pip download -q --only-binary=:all: --python-version 3.9 --implementation cp "${platforms[@]}" -d wh \
  "importlib-metadata>=4.4" "zipp>=3.20"
# The versions the TF 2.7.4 host reference ran on (matrix/reference/h100-580.159.04-tf27)
pip download -q --no-deps --only-binary=:all: --python-version 3.9 "${platforms[@]}" -d cuda \
  nvidia-cublas-cu11==11.11.3.6 nvidia-cudnn-cu11==8.9.6.50 nvidia-cufft-cu11==10.9.0.58 nvidia-curand-cu11==10.3.0.86 \
  nvidia-cusolver-cu11==11.4.1.48 nvidia-cusparse-cu11==11.7.5.86 nvidia-cuda-runtime-cu11==11.8.89
if [ ! -f bullseye-py39.tar.xz ]; then
  rm -rf root
  debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates bullseye root \
    "${DEBIAN_MIRROR:-http://deb.debian.org/debian}" >debootstrap.log
  rm -rf root/var/cache/apt/archives/*.deb root/var/lib/apt/lists/* root/usr/share/doc/* root/usr/share/man/* \
    root/usr/share/locale/*
  tar -C root -c . | xz -6 -T0 >bullseye-py39.tar.xz
  rm -rf root
fi
bash "$here/pieces.sh" cut "$out" tf27 wh cuda bullseye-py39.tar.xz
