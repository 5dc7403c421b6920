#!/usr/bin/env bash
# Reference evidence on a GPU host without Docker: every torch scenario through the process
# backend with NVML, plus the GPU tests. Writes a tarball of the results to ${OUT:-.}.
set -uo pipefail
export PYTHONUNBUFFERED=1 NO_COLOR=1 COLUMNS=170
out=${OUT:-$PWD/gpu-out}; mkdir -p "$out"
res=$(mktemp -d)/results
py=${PYTHON:-python3}
nvidia-smi --query-gpu=name,driver_version,memory.total,mig.mode.current --format=csv >"$out/nvidia-smi.csv" 2>&1
$py -c 'import torch, pynvml, rich; print("torch", torch.__version__, "cuda", torch.version.cuda)'
$py -m pytest -q -p no:cacheprovider tests/gpu 2>&1 | tee "$out/pytest-gpu.log"
for scenario in harness/scenarios/torch/[a-z]*.py; do
  $py -m harness run --python "$py" --env-name torch-host --results "$res" "$scenario"
done 2>&1 | tee "$out/runs.log"
tar -C "$(dirname "$res")" -czf "$out/results.tgz" results
