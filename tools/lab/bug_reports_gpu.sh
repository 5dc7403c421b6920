#!/usr/bin/env bash
# Bug reports as they come, on a lent host with two GPUs (no network, no Docker): notebooks, a pasted
# issue, spawned DDP ranks, one process on two GPUs, a torchrun job failing at its arguments, each bare and
# under repro (tools/lab/bug_reports_gpu.py); then bench_repro_overhead on one GPU.
# Carried: .lab/wheels (the harness's own packages for the host's Python 3.12) and .lab/ipy312.tgz
# (IPython 9.18.1 made for Python 3.12 with `pip install --target`, as environments/ipython_site.py makes it).
# Usage: tools/lab/bug_reports_gpu.sh OUT_DIR
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?results folder}
mkdir -p "$out" /root/hs "$HOME/.cache/gpu-cleanup-matrix/ipython"
cd "$here"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1 NO_COLOR=1 COLUMNS=170
python3 -m pip install -q --no-index --no-deps --no-compile --target /root/hs .lab/wheels/*.whl
tar -xzf .lab/ipy312.tgz -C /tmp && mv /tmp/t312 "$HOME/.cache/gpu-cleanup-matrix/ipython/py3.12-9.18.1"
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader > "$out/gpu.txt"
python3 -c "import sys, torch; print('python', sys.version.split()[0], 'torch', torch.__version__, 'cuda', torch.version.cuda)" \
  > "$out/versions.txt" 2>&1
python3 tools/lab/bug_reports_gpu.py "$out" /root/hs 2> "$out/driver.log"
echo "driver exit $?" >> "$out/driver.log"
if [ "${BENCH:-1}" = 1 ]; then  # BENCH=0: the rows only
  PYTHONPATH=/root/hs:$here CUDA_VISIBLE_DEVICES=0 python3 tests/benchmarks/bench_repro_overhead.py --runs 5 \
    > "$out/bench-repro-overhead.txt" 2>&1
fi
cat "$out/gpu.txt" "$out/versions.txt" "$out/table.md" "$out"/bench-repro-overhead.txt; tail -3 "$out/driver.log"
