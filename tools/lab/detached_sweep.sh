#!/usr/bin/env bash
# `harness sweep` in the background on a lent GPU machine, from a copy of the checkout: each call replaces
# the checkout and ends its processes, and the sweep outlives both (its own session). The harness's own
# dependencies are in /root/hs (the lab scripts' setup steps install them there).
#   detached_sweep.sh RESULTS SWEEP-ARGS...    RESULTS/sweep.log holds its output
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
results=${1:?usage: detached_sweep.sh RESULTS SWEEP-ARGS...}; shift
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0
rm -rf /root/src && mkdir -p /root/src "$results" && (cd "$here" && tar --exclude=./.lab -cf - .) | tar -C /root/src -x
cd /root/src && setsid nohup python3 -c "import sys, runpy; sys.path[:0] = ['/root/hs', '/root/src']; \
sys.argv = ['harness'] + sys.argv[1:]; runpy.run_module('harness', run_name='__main__')" \
  sweep --results "$results" "$@" >"$results/sweep.log" 2>&1 </dev/null &
