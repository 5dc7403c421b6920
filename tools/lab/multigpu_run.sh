#!/usr/bin/env bash
# On a host with two or more GPUs and no Docker: the multi-GPU scripts (tests/fidelity/multigpu), a
# single-GPU script and one that hides every GPU, bare and under `harness repro` through the process
# backend; the table, every run and the GPUs. Host packages the harness needs but the machine lacks
# come as wheels in .host-wheels (pip download pydantic jsonschema docker for its Python).
# Then the scripts of tests/fidelity/multigpu_launch, started by torchrun bare and through `repro -- torchrun ...`.
# Usage: tools/lab/multigpu_run.sh OUT_DIR
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?results folder}
mkdir -p "$out" /root/hs
cd "$here"
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1 NO_COLOR=1 COLUMNS=170
[ -d .host-wheels ] && python3 -m pip install -q --no-index --no-deps --no-compile --target /root/hs .host-wheels/*.whl
export PYTHONPATH=/root/hs:$here
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader > "$out/gpu.txt"
python3 -c "import sys, torch; print('python', sys.version.split()[0], 'torch', torch.__version__, 'cuda', torch.version.cuda,
'nccl', '.'.join(map(str, torch.cuda.nccl.version())))" > "$out/versions.txt" 2>&1
runs=$(mktemp -d)/runs  # the run folders, packed into OUT_DIR/runs.tgz at the end (deep folders travel badly)
python3 tests/fidelity/compare.py --interpreter "$(command -v python3)" --results "$runs" --json "$out/outcomes.json" \
  --timeout 240 tests/fidelity/multigpu/*.py tests/fidelity/gpu/cuda_visible_devices.py tests/repro/torch_del_empty_cache.py \
  > "$out/table.md" 2> "$out/compare.log"
echo "compare exit $?" >> "$out/compare.log"
# The same kind of jobs started by a launcher: torchrun as typed, bare and as `repro -- torchrun ...`.
launcher="torchrun --standalone --nproc_per_node=2"
command -v torchrun >/dev/null || launcher="python3 -m torch.distributed.run --standalone --nproc_per_node=2"
python3 tests/fidelity/compare.py --interpreter "$(command -v python3)" --results "$runs" --json "$out/outcomes-launch.json" \
  --timeout 240 --launcher "$launcher" tests/fidelity/multigpu_launch/*.py > "$out/table-launch.md" 2>> "$out/compare.log"
echo "compare (launcher) exit $?" >> "$out/compare.log"
for md in "$runs"/*/repro.md; do cat "$md"; done > "$out/repro.md"
tar -C "$(dirname "$runs")" -czf "$out/runs.tgz" runs
cat "$out/table.md" "$out/table-launch.md"; tail -5 "$out/compare.log"
