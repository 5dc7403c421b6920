#!/usr/bin/env bash
# GPU sweep of JAX releases that share the host's CUDA 13 libraries: each release is a virtualenv
# with jax[cuda13-local] (jax, jaxlib and the CUDA 13 plugin, no CUDA wheels of its own) made
# offline from WHEELHOUSE, which is also the index the releases are read from; the CUDA
# libraries are the ones the host's Python already has (its nvidia/*/lib folders), given to
# every cell through LD_LIBRARY_PATH. Runs the catalogue's jax scenarios in each release.
# Usage: jax_gpu_sweep.sh WHEELHOUSE RESULTS FROM TO [HOST_SITE]  (HOST_SITE: where jsonschema... were installed)
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
wheels=${1:?wheelhouse}; out=${2:?results folder}; low=${3:?first release}; high=${4:?last release}
export PYTHONPATH="${5:-}:$here"
site=$(python3 -c 'import site; print(site.getsitepackages()[0])')
libs=$(ls -d "$site"/nvidia/*/lib | paste -sd: -)
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$out/gpu.txt"
python3 -m harness sweep --package 'jax[cuda13-local]' --from "$low" --to "$high" --scenario 'jax/*' \
  --backend venv --variant gpu --venv-dir "$HOME/harness-venvs" --index-url "$wheels" --wheelhouse "$wheels" \
  --offline --setenv "LD_LIBRARY_PATH=$libs" --results "$out"
