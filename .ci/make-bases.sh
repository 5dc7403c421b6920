#!/usr/bin/env bash
# Make local stand-ins for the public base images the environments build on. No registry is
# reachable on CI's machine, so each base is made from Debian's packages (debootstrap -> docker
# import) under the project's own prefix, never under a public name: STANDIN/python:3.11-slim-bookworm
# for python:3.11-slim-bookworm, where STANDIN is HARNESS_BASE_MIRROR (.ci/run sets it), and the
# builds find them through that same variable, as a user's would find a registry mirror. This is CI
# set-up, not product: a user's machine pulls the real images. The machine's CA bundle goes in, and
# pip is told to use it, because this workplace's TLS passes through a local CA.
set -euo pipefail

CA_BUNDLE=${CA_BUNDLE:-$(python3 -m pip config get global.cert 2>/dev/null || echo /etc/ssl/certs/ca-certificates.crt)}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
WORK=${BASES_WORK:-/var/tmp/harness-bases}
STANDIN=${HARNESS_BASE_MIRROR:?set HARNESS_BASE_MIRROR to the prefix the stand-ins go under (.ci/run: gpu-cleanup-matrix-standin)}
mkdir -p "$WORK"

have() { docker image inspect "$1" >/dev/null 2>&1; }

# make_base TAG SUITE PACKAGES PYTHON   (PYTHON empty: a base without Python, as the CUDA bases are)
make_base() {
  local tag=$1 suite=$2 packages=$3 python=$4
  if have "$tag"; then echo "base $tag: present"; return; fi
  local root="$WORK/$suite-${python##*/}"
  rm -rf "$root"
  echo "base $tag: debootstrap $suite ($packages)"
  debootstrap --variant=minbase ${KEYRING:+--keyring="$KEYRING"} --include="$packages" "$suite" "$root" "$MIRROR" \
    >"$root.log" 2>&1 \
    || { tail -20 "$root.log"; exit 1; }
  install -m 0644 "$CA_BUNDLE" "$root/etc/ssl/certs/ca-certificates.crt"
  printf '[global]\ncert = /etc/ssl/certs/ca-certificates.crt\ndisable-pip-version-check = 1\n' >"$root/etc/pip.conf"
  # Like the official images: `python` is the image's Python, and pip may install system-wide.
  [ -n "$python" ] && ln -sf "$python" "$root/usr/local/bin/python"
  rm -f "$root"/usr/lib/python3*/EXTERNALLY-MANAGED
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
  tar -C "$root" -c . | docker import -c "ENV LANG=C.UTF-8" -c 'CMD ["python"]' - "$tag" >/dev/null
  rm -rf "$root"
  echo "base $tag: imported"
}

make_base "$STANDIN/python:3.11-slim-bookworm" bookworm python3,python3-pip,python3-venv,ca-certificates /usr/bin/python3
make_base "$STANDIN/python:3.9-slim-bullseye" bullseye python3,python3-pip,python3-venv,ca-certificates /usr/bin/python3

# Python 2.7: bullseye is the last Debian with python2.7; pip comes from its last py2 wheel.
if ! have "$STANDIN/python:2.7-slim"; then
  make_base harness-ci/python2.7-bare bullseye python2.7,ca-certificates /usr/bin/python2.7
  pipdir=$(mktemp -d)
  python3 -m pip download -q --no-deps --only-binary=:all: -d "$pipdir" pip==20.3.4 "setuptools<45" wheel==0.37.1
  docker build -q -t "$STANDIN/python:2.7-slim" -f - "$pipdir" >/dev/null <<'DOCKERFILE'
FROM harness-ci/python2.7-bare
COPY *.whl /tmp/wheels/
RUN python /tmp/wheels/pip-20.3.4-py2.py3-none-any.whl/pip install --no-index /tmp/wheels/*.whl \
 && rm -rf /tmp/wheels /root/.cache \
 && printf '[global]\ncert = /etc/ssl/certs/ca-certificates.crt\ndisable-pip-version-check = 1\nprefer-binary = 1\n' >/etc/pip.conf
DOCKERFILE
  rm -rf "$pipdir"
  echo "base $STANDIN/python:2.7-slim: made"
fi

# Python 3.7 (torch 1.0-1.5 have wheels for it and no newer Python): no Debian release after buster has it, and
# buster's archive is not reachable here; Ubuntu 18.04's universe has 3.7.5 (bionic-updates). The stand-in for
# python:3.7-slim-bullseye (the base `--with torch==1.0.1 --variant cpu` builds on): a bare bionic by debootstrap,
# checked with Ubuntu's archive key (its keyring package pinned by hash), then Python 3.7 from apt and pip 24.0
# (the last for 3.7) from its wheel.
UBUNTU_MIRROR=${UBUNTU_MIRROR:-http://archive.ubuntu.com/ubuntu}
UBUNTU_KEYRING_DEB=pool/main/u/ubuntu-keyring/ubuntu-keyring_2018.09.18.1~18.04.2_all.deb
UBUNTU_KEYRING_SHA256=5d8609563fb3074026b254d7d5248f90d393c7dbafcac48916f333bf3c90fed9
if ! have "$STANDIN/python:3.7-slim-bullseye"; then
  keys=$(mktemp -d)
  python3 -c 'import sys, urllib.request; urllib.request.urlretrieve(sys.argv[1], sys.argv[2])' \
    "$UBUNTU_MIRROR/$UBUNTU_KEYRING_DEB" "$keys/keyring.deb"
  echo "$UBUNTU_KEYRING_SHA256  $keys/keyring.deb" | sha256sum -c --quiet
  dpkg-deb -x "$keys/keyring.deb" "$keys/x"
  MIRROR=$UBUNTU_MIRROR KEYRING=$keys/x/usr/share/keyrings/ubuntu-archive-keyring.gpg \
    make_base harness-ci/bare-bionic bionic ca-certificates ""
  pipdir=$(mktemp -d)
  python3 -m pip download -q --no-deps --only-binary=:all: -d "$pipdir" pip==24.0 setuptools==68.0.0 wheel==0.42.0
  docker build -q -t "$STANDIN/python:3.7-slim-bullseye" --build-arg "UBUNTU_MIRROR=$UBUNTU_MIRROR" -f - "$pipdir" \
    >/dev/null <<'DOCKERFILE'
FROM harness-ci/bare-bionic
ARG UBUNTU_MIRROR
RUN printf 'deb %s bionic main universe\ndeb %s bionic-updates main universe\n' "$UBUNTU_MIRROR" "$UBUNTU_MIRROR" \
      >/etc/apt/sources.list \
 && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3.7 \
      python3-distutils >/dev/null \
 && rm -rf /var/lib/apt/lists/* && ln -sf /usr/bin/python3.7 /usr/local/bin/python
COPY *.whl /tmp/wheels/
RUN python /tmp/wheels/pip-24.0-py3-none-any.whl/pip install -q --no-index /tmp/wheels/*.whl \
 && rm -rf /tmp/wheels /root/.cache \
 && printf '[global]\ncert = /etc/ssl/certs/ca-certificates.crt\ndisable-pip-version-check = 1\n' >/etc/pip.conf
DOCKERFILE
  rm -rf "$pipdir" "$keys"
  echo "base $STANDIN/python:3.7-slim-bullseye: made (Ubuntu 18.04's Python 3.7)"
fi

# Stand-ins for the gpu variant's bases, so that CI builds every gpu Dockerfile up to pip's
# resolution of its pins (`nox -s images -- --variant gpu --check`): bare Debian systems without
# Python for the CUDA bases (install.sh takes Python from apt there, as on the real Ubuntu-based
# CUDA images), and the Python 2.7 stand-in for TensorFlow's own 1.8.0-gpu image.
make_base harness-ci/bare-bookworm bookworm ca-certificates ""
make_base harness-ci/bare-bullseye bullseye ca-certificates ""
docker tag harness-ci/bare-bookworm "$STANDIN/nvidia/cuda:12.8.1-base-ubuntu24.04"
docker tag harness-ci/bare-bookworm "$STANDIN/nvidia/cuda:13.0.0-base-ubuntu24.04"
docker tag harness-ci/bare-bullseye "$STANDIN/nvidia/cuda:11.2.2-cudnn8-runtime-ubuntu20.04"
docker tag "$STANDIN/python:2.7-slim" "$STANDIN/tensorflow/tensorflow:1.8.0-gpu"
echo "gpu stand-ins: tagged"
