#!/usr/bin/env bash
# What a repro costs on a lent GPU machine (tests/benchmarks/bench_repro_overhead.py), run in the background from a
# copy of the checkout so it outlives the call and other calls (carrying pieces) can go on beside it; then where the
# CLI's own start goes (-X importtime, cProfile of one repro) and `--help`'s time. The harness's dependencies from
# the carried .lab/wheels into /root/hs. The lent machine sets PYTHONDONTWRITEBYTECODE and its own packages have no
# bytecode (pynvml, 34 modules in all, compiled again at every start: 0.16 s of the CLI's): here bytecode is kept in
# PYTHONPYCACHEPREFIX, made by the benchmark's first, uncounted turn, for the bare script and repro alike, as on a
# host where pip compiled what it installed.
#   start RESULTS [RUNS] [SECONDS]   there: the copy, the install, the benchmark and the profiles, in the background
#   wait RESULTS SECONDS             there: up to SECONDS for it, then what it printed
set -euo pipefail
source "$(dirname "$0")/common.sh"
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
case ${1:?usage: repro_overhead_gpu.sh start RESULTS [RUNS] [SECONDS] | wait RESULTS SECONDS} in
  start)
    results=${2:?results} runs=${3:-9} seconds=${4:-1} src=/root/src-bench
    python3 -m pip install -q --no-index --no-deps --target /root/hs "$lab_here"/.lab/wheels/*.whl
    lab_queue_copy "$src" "$results"
    cd "$src" && setsid nohup bash -c "export PYTHONPATH=/root/hs:$src PYTHONPYCACHEPREFIX=/root/pycache; \
unset PYTHONDONTWRITEBYTECODE; \
python3 -m compileall -q harness /root/hs >/dev/null; \
python3 tests/benchmarks/bench_repro_overhead.py --runs $runs --seconds $seconds >'$results/bench-${seconds}s.txt' 2>&1; \
printf 'import torch\nx = torch.ones(1024, 1024, device=\"cuda\")\ndel x\n' >/tmp/one.py; \
python3 -X importtime -m harness repro /tmp/one.py --interpreter python3 --results /tmp/prof-r >/dev/null 2>'$results/importtime.txt'; \
python3 -m cProfile -o /tmp/repro.prof -m harness repro /tmp/one.py --interpreter python3 --results /tmp/prof-r >/dev/null 2>&1; \
python3 -c \"import pstats; pstats.Stats('/tmp/repro.prof').sort_stats('cumulative').print_stats(60)\" >'$results/cprofile.txt'; \
python3 -c \"import subprocess, sys, time
for _ in range(5):
    t = time.perf_counter(); subprocess.run([sys.executable, '-m', 'harness', '--help'], capture_output=True); print(round(time.perf_counter() - t, 3))\" >'$results/help-seconds.txt'; \
touch '$results/queue.done'" >"$results/queue.log" 2>&1 </dev/null &
    ;;
  wait) lab_queue_wait "${2:?results}" "${3:?seconds}" ;;
  *) echo "unknown step $1" >&2; exit 2 ;;
esac
