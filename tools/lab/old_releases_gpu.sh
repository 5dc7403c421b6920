#!/usr/bin/env bash
# Releases older than the GPU host's own Python, swept on its GPU in virtualenvs: torch 1.x needs
# Python 3.7, the host has 3.12 and no network. What travels (tools/lab/pieces.sh, 36 MiB a call):
# a CPython built by pyenv elsewhere (unpacked where pyenv keeps it, so the harness finds it as on
# any machine with pyenv), the harness's own wheels for the host's Python, and a wheelhouse of the
# releases and their companions that serves as the index.
#   setup DEST RESULTS                    there, after `pieces.sh join`: the Python, the harness's wheels
#   warm DEST                             there: each torch of DEST/wh started once on the GPU, all at once
#                                         in the background, timed (warm/*.txt): a build without sm_90 code
#                                         JIT-compiles its PTX at its first CUDA start, for minutes, and the
#                                         driver's cache keeps it for the sweep's cells
#   prewarm DEST RESULTS                  there: the same, each release's PTX first compiled on every core
#                                         (tools/lab/ptx_prewarm.py), then its first CUDA start timed
#                                         in the background (warm/*.txt)
#   start DEST RESULTS -- SWEEP-ARGS...   there: the sweep in the background (its own session: it
#                                         outlives the call)
#   wait RESULTS SECONDS                  there: wait up to SECONDS for the sweep, then say where it is
#   queue DEST RESULTS RELEASE...         there: each torch RELEASE in turn, as its wheel arrives in DEST/wh
#                                         (carried in pieces while the queue runs): PTX compiled on every
#                                         core, its first CUDA start timed, then its sweep (RESULTS/RELEASE);
#                                         in its own session, from a copy of the checkout; RESULTS/queue.log
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
export NCCL_NVLS_ENABLE=0
case ${1:?usage: old_releases_gpu.sh setup DEST RESULTS | warm DEST | prewarm DEST RESULTS | start DEST RESULTS -- ARGS... | wait RESULTS SECONDS} in
  setup)
    dest=${2:?dest} results=${3:?results}
    mkdir -p /root/.pyenv/versions "$results"
    for py in "$dest"/send/py*.tar.xz; do tar -C /root/.pyenv/versions -xJf "$py"; done
    ls /root/.pyenv/versions
    python3 -m pip install -q --no-index --no-deps --no-compile --target /root/hs "$dest"/send/hostwheels/*.whl
    nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv >"$results/gpu.txt"
    python3 --version >>"$results/gpu.txt"
    cat "$results/gpu.txt"
    ;;
  warm)
    dest=${2:?dest}
    export CUDA_CACHE_MAXSIZE=4294967296
    mkdir -p /root/warm
    "$(ls /root/.pyenv/versions/*/bin/python3.? | head -1)" -m venv /root/warm/venv
    py=/root/warm/venv/bin/python
    for wheel in "$dest"/wh/torch-*.whl; do
      release=$(basename "$wheel" | cut -d- -f2)
      "$py" -m pip install -q --no-index --no-deps --no-compile --target "/root/warm/$release" "$wheel" "$dest"/wh/numpy-*.whl
      setsid nohup env PYTHONPATH="/root/warm/$release" "$py" -c "import time; t = time.time(); import torch; \
x = torch.zeros(1, device='cuda'); torch.cuda.synchronize(); print('%s: first CUDA start %.1f s' % (torch.__version__, time.time() - t))" \
        >"/root/warm/$release.txt" 2>&1 &
    done
    ;;
  prewarm)
    # the same first start, after tools/lab/ptx_prewarm.py compiled each release's PTX on every core
    dest=${2:?dest} results=${3:?results}
    export CUDA_CACHE_MAXSIZE=4294967296
    mkdir -p /root/warm "$results"
    [ -d /root/warm/venv ] || "$(ls /root/.pyenv/versions/*/bin/python3.? | head -1)" -m venv /root/warm/venv
    py=/root/warm/venv/bin/python
    for wheel in "$dest"/wh/torch-*.whl; do
      release=$(basename "$wheel" | cut -d- -f2)
      "$py" -m pip install -q --no-index --no-deps --no-compile --target "/root/warm/$release" "$wheel" "$dest"/wh/numpy-*.whl
      python3 "$here/tools/lab/ptx_prewarm.py" "/root/warm/$release"/torch/lib/*.so* 2>&1 | tee -a "$results/prewarm.txt"
    done
    du -sh "${CUDA_CACHE_PATH:-$HOME/.nv/ComputeCache}" | tee -a "$results/prewarm.txt"
    for wheel in "$dest"/wh/torch-*.whl; do  # in the background: a start the prewarm did not serve takes long
      release=$(basename "$wheel" | cut -d- -f2)
      setsid nohup env PYTHONPATH="/root/warm/$release" "$py" -c "import time; t = time.time(); import torch; \
x = torch.zeros(1, device='cuda'); torch.cuda.synchronize(); print('%s: first CUDA start %.1f s' % (torch.__version__, time.time() - t))" \
        >"/root/warm/$release.txt" 2>&1 &
    done
    ;;
  start)
    dest=${2:?dest} results=${3:?results}; shift 4
    # The driver's largest JIT cache: a release without sm_90 code compiles its PTX once, then reuses it.
    export CUDA_CACHE_MAXSIZE=4294967296
    bash "$here/tools/lab/detached_sweep.sh" "$results" "$@"
    ;;
  queue)
    dest=${2:?dest} results=${3:?results}; shift 3
    mkdir -p "$results" && rm -rf /root/src && mkdir -p /root/src
    (cd "$here" && tar --exclude=./.lab -cf - .) | tar -C /root/src -x
    setsid nohup bash /root/src/tools/lab/old_releases_gpu.sh each "$dest" "$results" "$@" \
      >"$results/queue.log" 2>&1 </dev/null &
    ;;
  each)  # the queue itself (see queue)
    dest=${2:?dest} results=${3:?results}; shift 3
    export CUDA_CACHE_MAXSIZE=4294967296 PYTHONUNBUFFERED=1
    [ -d /root/warm/venv ] || "$(ls /root/.pyenv/versions/*/bin/python3.? | head -1)" -m venv /root/warm/venv
    py=/root/warm/venv/bin/python
    for release in "$@"; do
      echo "$(date +%T) $release: waiting for its wheel"
      for _ in $(seq 1 1800); do compgen -G "$dest/wh/torch-$release-*.whl" >/dev/null && break; sleep 1; done
      wheel=$(compgen -G "$dest/wh/torch-$release-*.whl") || { echo "$release: no wheel came"; continue; }
      "$py" -m pip install -q --no-index --no-deps --no-compile --target "/root/warm/$release" "$wheel" "$dest"/wh/numpy-*.whl
      echo "$(date +%T) $release: PTX compiled on every core"
      python3 "$here/tools/lab/ptx_prewarm.py" "/root/warm/$release"/torch/lib/*.so* >"$results/prewarm-$release.txt" 2>&1
      echo "$(date +%T) $release: first CUDA start"
      timeout 900 env PYTHONPATH="/root/warm/$release" "$py" -c "import time; t = time.time(); import torch; \
x = torch.zeros(1, device='cuda'); torch.cuda.synchronize(); print('%s: first CUDA start %.1f s' % (torch.__version__, time.time() - t))" \
        >"$results/first-start-$release.txt" 2>&1
      echo "$(date +%T) $release: sweep"
      (cd "$here" && python3 -c "import sys, runpy; sys.path[:0] = ['/root/hs', '$here']; \
sys.argv = ['harness'] + sys.argv[1:]; runpy.run_module('harness', run_name='__main__')" sweep --results "$results/$release" \
        --package torch --from "$release" --to "$release" --scenario 'torch/*' --backend venv --variant gpu \
        --index-url "$dest/wh" --wheelhouse "$dest/wh" --offline --venv-dir /root/venvs --timeout 300 --repeat 1) \
        >"$results/sweep-$release.log" 2>&1
      echo "$(date +%T) $release: done ($?)"
    done
    du -sh "${CUDA_CACHE_PATH:-$HOME/.nv/ComputeCache}"
    ;;
  wait)
    results=${2:?results} seconds=${3:?seconds}
    for _ in $(seq 1 "$seconds"); do pgrep -f "harness.*sweep" >/dev/null || break; sleep 1; done
    pgrep -f "harness.*sweep" >/dev/null && echo "still running" || echo "done"
    tail -n 40 "$results/sweep.log"
    ;;
  *) echo "unknown step $1" >&2; exit 2 ;;
esac
