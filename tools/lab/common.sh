# Sourced by the lab scripts that carry wheels to a lent GPU machine and run the harness there; not run.
#   lab_harness ARGS...                 the checkout's harness (LAB_SRC, else the checkout) on the host's Python,
#                                       its dependencies from /root/hs
#   lab_pack_unpacked TAR WHEEL...      here: the wheels unpacked side by side as one zstd tar (TAR), its
#                                       files ordered by name, so one library of several releases
#                                       sits together inside zstd's 2 GiB window (two torch releases' 1 GB
#                                       libtorch_cuda.so: 474 MB, against 387 MB for one)
#   lab_rezip ARCHIVE WHEELHOUSE        there: those wheels zipped again (stored, the same files and RECORD)
#   lab_queue_copy SRC RESULTS          there: the checkout copied to SRC for a queue that outlives the call, the GPU
#                                       named in RESULTS/gpu.txt, RESULTS/queue.done removed
#   lab_queue_wait RESULTS SECONDS      there: up to SECONDS for RESULTS/queue.done, then where the queue is
# The machine has no zstd: a script carries this one's binary and names it in LAB_ZSTD.
lab_here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
lab_zstd() { if command -v zstd >/dev/null; then zstd "$@"; else "${LAB_ZSTD:?no zstd here: carry one}" "$@"; fi; }
lab_harness() {
  python3 -c "import sys, runpy; sys.path[:0] = ['/root/hs', '${LAB_SRC:-$lab_here}']; sys.argv = ['harness'] + \
sys.argv[1:]; runpy.run_module('harness', run_name='__main__')" "$@"
}
lab_pack_unpacked() {
  local tarball x
  tarball=$(realpath "$1") x=$(dirname "$(realpath "$1")")/x; shift
  rm -rf "$x" && mkdir -p "$x"
  for wheel in "$@"; do mkdir -p "$x/$(basename "$wheel")" && unzip -q "$wheel" -d "$x/$(basename "$wheel")"; done
  (cd "$x" && find . -type f -printf '%f\t%p\n' | sort | cut -f2 >"$x.files" \
    && tar -cf - --no-recursion -T "$x.files" | zstd -q -f -T0 -12 --long=31 -o "$tarball")
  rm -rf "$x" "$x.files"
}
lab_rezip() {
  local archive=$1 wheelhouse=$2 unpacked
  unpacked=$(dirname "$archive")/x && rm -rf "$unpacked" && mkdir -p "$unpacked" "$wheelhouse"
  lab_zstd -q -d --long=31 -c "$archive" | tar -C "$unpacked" -x
  python3 - "$unpacked" "$wheelhouse" <<'PY'
import os, sys, zipfile
root, wheelhouse = sys.argv[1:]
for wheel in sorted(os.listdir(root)):  # each folder a wheel's files: zipped again (stored), the same RECORD
    top = os.path.join(root, wheel)
    with zipfile.ZipFile(os.path.join(wheelhouse, wheel + ".part"), "w", zipfile.ZIP_STORED) as out:
        for folder, _, files in os.walk(top):
            for name in sorted(files):
                out.write(os.path.join(folder, name), os.path.relpath(os.path.join(folder, name), top))
    os.rename(os.path.join(wheelhouse, wheel + ".part"), os.path.join(wheelhouse, wheel))
    print(wheel)
PY
  rm -rf "$unpacked" "$archive"
}
lab_queue_copy() {
  local src=$1 results=$2
  rm -rf "$src" && mkdir -p "$src" "$results" && rm -f "$results/queue.done"
  (cd "$lab_here" && tar --exclude=./.lab -cf - .) | tar -C "$src" -x
  nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv >"$results/gpu.txt"
}
lab_queue_wait() {
  local results=$1 seconds=$2
  for _ in $(seq 1 "$seconds"); do [ ! -e "$results/queue.done" ] || break; sleep 1; done
  if [ -e "$results/queue.done" ]; then echo "done"; else echo "still running"; fi
  tail -n 30 "$results/queue.log"
}
