#!/usr/bin/env bash
# GPU fixtures for what-holds-the-memory: repro of tests/repro/{torch_small_tensor, torch_detached_child,
# torch_dataloader_workers, jax_no_prealloc}.py through the process backend on the GPU host's own
# Python (torch and JAX installed there), then a bare-vs-repro timing of a 5 s torch script.
# Usage: attribution_records.sh RESULTS_DIR [HOST_SITE]   (HOST_SITE: where rich, docker... were installed)
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?results folder}
export PYTHONPATH="${2:-}:$here"
repro() { python3 -m harness repro "$1" --interpreter "$(command -v python3)" --results "$out/$(basename "$1" .py)" "${@:2}" >/dev/null 2>>"$out/repro.log" || true; }
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$out/gpu.txt"
python3 -c "import torch, jax; print('torch', torch.__version__, 'jax', jax.__version__)" > "$out/versions.txt" 2>&1 || true
repro "$here/tests/repro/torch_small_tensor.py"
repro "$here/tests/repro/torch_detached_child.py" --timeout 120
repro "$here/tests/repro/torch_dataloader_workers.py"
repro "$here/tests/repro/jax_no_prealloc.py" --setenv XLA_PYTHON_CLIENT_PREALLOCATE=false
python3 "$here/tests/benchmarks/bench_repro_overhead.py" --runs 3 > "$out/bench-repro-overhead.txt" 2>&1 || true
