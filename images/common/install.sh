#!/bin/sh
# Runs inside `docker build`: make sure the image has `python` with pip, install the environment's
# pinned packages and import its frameworks. The pins arrive in pins.env (written by the harness
# from matrix/environments.toml); the wheelhouse holds any wheels handed over (--wheelhouse).
set -eu
here=$(dirname "$0")
. "$here/pins.env"
export PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1
wheels=$here/wheelhouse
pip_wheel=$(ls "$wheels"/pip-*.whl 2>/dev/null | tail -n 1 || true)

managed() {  # PEP 668: the distribution keeps pip out of its own Python
  python3 -c 'import os, sys, sysconfig; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["stdlib"], "EXTERNALLY-MANAGED")))'
}

if ! command -v python >/dev/null 2>&1; then
  if command -v python3 >/dev/null 2>&1 && python3 -m pip --version >/dev/null 2>&1 && ! managed; then
    ln -s "$(command -v python3)" /usr/local/bin/python
  else
    # CUDA bases come without Python: the distribution's, in a virtualenv. Offline, a Python
    # without ensurepip gets pip from the wheelhouse instead of from apt.
    if ! command -v python3 >/dev/null 2>&1 || { ! python3 -c 'import ensurepip' 2>/dev/null && [ -z "$pip_wheel" ]; }; then
      apt-get update
      DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 python3-venv python3-pip ca-certificates
      rm -rf /var/lib/apt/lists/*
    fi
    if python3 -c 'import ensurepip' 2>/dev/null; then
      python3 -m venv /opt/py
    else
      python3 -m venv --without-pip /opt/py
      /opt/py/bin/python "$pip_wheel/pip" install -q --no-index "$pip_wheel"
    fi
    # A wrapper, not a symlink: Python finds its virtualenv (pyvenv.cfg) from the path it is run as.
    printf '#!/bin/sh\nexec /opt/py/bin/python "$@"\n' >/usr/local/bin/python
    chmod 755 /usr/local/bin/python
  fi
fi

set -- --find-links "$wheels"
[ -n "${PIP_INDEX:-}" ] && set -- "$@" --extra-index-url "$PIP_INDEX"
if [ -n "${HARNESS_CHECK_ONLY:-}" ]; then
  # Resolve the pins for this image's Python without installing them (pip >= 22.2; older pips
  # fetch the pinned distributions themselves), then stop: the check is that this works.
  # shellcheck disable=SC2086  # options and requirement lists are space-separated on purpose
  if python -m pip install --help | grep -q -- --dry-run; then
    python -m pip install -q --dry-run --ignore-installed ${PIP_OPTIONS:-} "$@" ${PIP_PACKAGES}
  else
    python -m pip download -q --no-deps -d /tmp/check ${PIP_OPTIONS:-} "$@" ${PIP_PACKAGES} && rm -rf /tmp/check
  fi
  echo "pins resolve: ${PIP_PACKAGES}"
  exit 0
fi
# shellcheck disable=SC2086
python -m pip install --no-cache-dir ${PIP_OPTIONS:-} "$@" ${PIP_PACKAGES}
for module in ${IMPORTS:-}; do
  python -c "import $module; print('$module', getattr($module, '__version__', '?'))"
done
