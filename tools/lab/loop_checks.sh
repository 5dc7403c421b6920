#!/usr/bin/env bash
# GPU evidence for the repro and checkpoint work, on a host without Docker: the torch/JAX/CuPy
# matrix through the process backend (verdicts with the fast settle), the GPU tests, the
# checkpoint benchmark with NVML, and two bug-report scripts under repro. Results go to ${OUT:-.}.
set -uo pipefail
export PYTHONUNBUFFERED=1 NO_COLOR=1 COLUMNS=170
out=${OUT:-$PWD/gpu-out}; mkdir -p "$out"
py=${PYTHON:-python3}
res=$(mktemp -d)/results
nvidia-smi --query-gpu=name,driver_version,memory.total,mig.mode.current --format=csv >"$out/nvidia-smi.csv" 2>&1
$py -m harness matrix --backend process --env host-python --results "$res" >"$out/matrix.log" 2>&1
$py -m pytest -q -s -p no:cacheprovider tests/gpu >"$out/pytest-gpu.log" 2>&1
$py tests/benchmarks/bench_checkpoints.py >"$out/bench-checkpoints.log" 2>&1
for script in tests/repro/torch_del_empty_cache.py tests/repro/torch_model_loop.py; do
  $py -m harness repro "$script" --interpreter "$py" --results "$res"
done >"$out/repro.md" 2>"$out/repro.log"
tar -C "$(dirname "$res")" -czf "$out/results.tgz" results
tail -3 "$out"/*.log
