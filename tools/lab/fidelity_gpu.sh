#!/usr/bin/env bash
# On a GPU host: every fidelity script (tests/fidelity/scripts: CPU-observable; tests/fidelity/gpu:
# CUDA, torch.compile, accelerate, transformers; tests/repro/torch_detached_child.py: a detached helper)
# bare and under `harness repro`
# through the process backend on the host's own Python; the table, every run and the facts.
# Usage: tools/lab/fidelity_gpu.sh OUT_DIR [SCRIPT...]   (tests/fidelity/gpu_run.sh until it moved here)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?results folder}; shift
mkdir -p "$out"
cd "$here"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$out/gpu.txt"
python3 -c "import sys, torch, transformers, accelerate; print('python', sys.version.split()[0], 'torch', torch.__version__,
'cuda', torch.version.cuda, 'transformers', transformers.__version__, 'accelerate', accelerate.__version__)" > "$out/versions.txt" 2>&1
scripts=("$@")
[ ${#scripts[@]} -gt 0 ] || scripts=(tests/fidelity/scripts/*.py tests/fidelity/gpu/*.py harness/examples/[!_]*.py tests/repro/torch_detached_child.py)
python3 tests/fidelity/compare.py --interpreter "$(command -v python3)" --results "$out/runs" --json "$out/outcomes.json" \
  --timeout 240 "${scripts[@]}" > "$out/table.md" 2> "$out/compare.log"
echo "compare exit $?" >> "$out/compare.log"
cat "$out/table.md"
