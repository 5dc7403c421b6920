#!/bin/sh
# Runs inside `docker build`: make sure the image has `python` with pip, then install the env's
# pinned packages (build args from matrix/environments.toml). CUDA bases come without Python:
# it is taken from the distribution into a virtualenv (PEP 668 forbids system-wide pip there).
set -eu
if ! command -v python >/dev/null 2>&1; then
  if command -v python3 >/dev/null 2>&1 && python3 -m pip --version >/dev/null 2>&1; then
    ln -s "$(command -v python3)" /usr/local/bin/python
  else
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 python3-venv python3-pip ca-certificates
    rm -rf /var/lib/apt/lists/*
    python3 -m venv /opt/py
    ln -s /opt/py/bin/python /usr/local/bin/python
  fi
fi
set -- --find-links /tmp/build/wheelhouse
[ -n "${PIP_INDEX:-}" ] && set -- "$@" --extra-index-url "$PIP_INDEX"
# shellcheck disable=SC2086  # options and requirement lists are space-separated on purpose
python -m pip install --no-cache-dir ${PIP_OPTIONS:-} "$@" ${PIP_PACKAGES}
