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

# $1 can install packages: it has pip, and the distribution does not keep pip out (PEP 668)
can_install() {
  "$1" -m pip --version >/dev/null 2>&1 && "$1" -c 'import os, sys, sysconfig
sys.exit(os.path.exists(os.path.join(sysconfig.get_paths()["stdlib"], "EXTERNALLY-MANAGED")))' 2>/dev/null
}

py=/usr/local/bin/python  # named by its path below: the shell remembers where it first found `python`
if command -v python >/dev/null 2>&1 && can_install python; then
  py=$(command -v python)  # the official Python images, TensorFlow's own
elif command -v python3 >/dev/null 2>&1 && can_install python3; then
  ln -sf "$(command -v python3)" "$py"
else
  # CUDA bases come without Python, and a distribution's Python keeps pip out (PEP 668): the
  # distribution's Python in a virtualenv. Offline, a Python without ensurepip gets pip from the
  # wheelhouse instead of from apt.
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
  # /usr/local/bin comes before /usr/bin on PATH, so it wins over a distribution's `python`.
  rm -f "$py"
  printf '#!/bin/sh\nexec /opt/py/bin/python "$@"\n' >"$py"
  chmod 755 "$py"
fi

set -- --find-links "$wheels"
[ -n "${PIP_INDEX:-}" ] && set -- "$@" --extra-index-url "$PIP_INDEX"
if [ -n "${HARNESS_CHECK_ONLY:-}" ]; then
  # Resolve the pins for this image's Python without installing them (pip >= 22.2; older pips
  # fetch the pinned distributions themselves), then stop: the check is that this works.
  # shellcheck disable=SC2086  # options and requirement lists are space-separated on purpose
  if "$py" -m pip install --help | grep -q -- --dry-run; then
    "$py" -m pip install -q --dry-run --ignore-installed ${PIP_OPTIONS:-} "$@" ${PIP_PACKAGES}
  else
    "$py" -m pip download -q --no-deps -d /tmp/check ${PIP_OPTIONS:-} "$@" ${PIP_PACKAGES} && rm -rf /tmp/check
  fi
  echo "pins resolve: ${PIP_PACKAGES}"
  exit 0
fi
# shellcheck disable=SC2086
"$py" -m pip install --no-cache-dir ${PIP_OPTIONS:-} "$@" ${PIP_PACKAGES}
for module in ${IMPORTS:-}; do
  if ! out=$("$py" -c "import $module; print('$module', getattr($module, '__version__', '?'))" 2>&1); then
    case $out in
      # TF 1.x links the driver's libcuda.so.1, which a build never has: the cells import it with the GPU
      *"libcuda.so.1"*) echo "$module: imports only beside the NVIDIA driver (libcuda.so.1), not in a build" ;;
      *) echo "$out" >&2; exit 1 ;;
    esac
  else
    echo "$out" | tail -n 1
  fi
done
