#!/usr/bin/env bash
# The torch/JAX/CuPy rows on a GPU host through Ray (a local Ray instance: one task per GPU),
# beside the same rows on the local GPU slots; wall times and records go to ${OUT:-.}.
# Needs Ray importable (pip install 'gpu-cleanup-matrix[ray]').
set -uo pipefail
export PYTHONUNBUFFERED=1 NO_COLOR=1 COLUMNS=170
out=${OUT:-$PWD/gpu-out}; mkdir -p "$out"
py=${PYTHON:-python3}
res=$(mktemp -d)/results
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv >"$out/nvidia-smi.csv" 2>&1
$py -c 'import ray; print("ray", ray.__version__)' | tee "$out/versions.txt"
now() { $py -c "import time; print(time.time())"; }
start=$(now)
$py -m harness matrix --backend process --env host-python --results "$res/local" >"$out/local.log" 2>&1
local_s=$($py -c "print($(now) - $start)")
start=$(now)
$py -m harness matrix --backend process --env host-python --cluster ray --results "$res/ray" >"$out/ray.log" 2>&1
ray_s=$($py -c "print($(now) - $start)")
$py -m harness doctor --cluster ray >"$out/doctor.log" 2>&1
printf 'local GPU slots: %.1f s\nray (one task per GPU, Ray start included): %.1f s\n' "$local_s" "$ray_s" | tee "$out/wall.txt"
for f in "$out/local.log" "$out/ray.log"; do tail -n 4 "$f"; done
tar -C "$(dirname "$res")" -czf "$out/results.tgz" results
