#!/usr/bin/env bash
# TensorFlow releases 2.15-2.21 swept on a lent GPU machine (no network, no registry), each in the
# product's own container: `harness sweep --backend docker --variant gpu` builds every release's image
# from images/adhoc (tensorflow[and-cuda], CUDA only from pip) and runs the TF scenarios there, the
# GPU through --gpus. Their wheels (12 GB: seven TF wheels and five CUDA 12 sets) and their cells
# (26 a release, about 5.5 minutes on an H200) do not fit one 30-minute loan of the machine, so the
# sweep runs over several: the first loan starts it with the wheels of its first releases (the
# other columns fail to build there: EnvironmentFailed), each next loan carries the next releases'
# wheels and the run folder and finishes more of it with --resume. The plan comes from a saved copy
# of the index's page for tensorflow (--index-url), the wheels from the wheelhouse. Measured:
# a 50 MiB piece travels in about 4.7 s; an image builds in 87-102 s.
#
# Here first (PyPI reachable):
#   wheels DIR               the index page into DIR/tfidx; each release's plan as sweep makes it
#                            (wheel_groups.py plan: its pins and Python, 3.10 for 2.15 and 3.12 after),
#                            resolved by `uv pip compile` and downloaded into DIR/wh
#   pieces DIR OUT GROUP:RELEASE...
#                            the groups cut into OUT/NNN/ (one piece a folder, pieces.sh size) in the order
#                            given: `small` (every small wheel, the index page, and where a plan
#                            names the 22.04 base DIR/jammy.tar.xz, a debootstrapped Ubuntu 22.04 with
#                            python3-venv), then per release its TF wheel and the CUDA wheels it pins
#                            that no earlier group carried. E.g. the first loan:
#                            small:2.15.1 s215:2.15.1 s216:2.16.2 s217:2.17.1
# There, one step per call:
#   setup BUNDLE             engine (data root on the RAM disk), stand-in bases, the machine's facts
#   collect FOLDER           a carried piece into /root/ptf/GROUP
#   join GROUP               check and unpack a group into the wheelhouse
#   prebuild PIN...          (background) build those pins' images as the sweep will
#   sweep OUT                (background) the sweep; progress in OUT.log
#   resume RUN_DIR [--from V] (background) finish a sweep, or widen it (--from/--to); a run folder
#                            carried in the checkout is copied out of it first; progress in
#                            /root/tfsweep/res/RUN.log. E.g. 2.14.1 (CUDA 11.8 from pip) added:
#                            pieces DIR OUT small:2.14.1 s214:2.14.1, then resume RUN_DIR --from 2.14.1
#   matrix OUT               (background) the tf-current row, --gpu-mode gpus; progress in OUT.log
#   out FOLDER...            what to bring back, as $OUT/results.tgz
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
work=/root/tfsweep wh=/root/tfsweep/wh
src=/root/src  # what runs in the background runs from a copy: the checkout is replaced at every call
export PATH=/tmp/dk/bin:$PATH PYTHONPATH=/root/hs:$src
RELEASES="2.15.1 2.16.2 2.17.1 2.18.1 2.19.1 2.20.0 2.21.0"
sweep_args=(--backend docker --variant gpu --index-url file:///root/tfidx --wheelhouse "$wh" --offline --jobs 2)

case ${1:?usage: tf_gpu_sweep.sh wheels DIR|pieces DIR OUT GROUP:RELEASE...|setup BUNDLE|collect FOLDER|join GROUP|prebuild PIN...|sweep OUT|resume RUN_DIR|matrix OUT|out FOLDER...} in
  wheels)
    dir=${2:?folder}; mkdir -p "$dir/req" "$dir/wh" "$dir/tfidx/tensorflow"
    curl -sf -H 'Accept: text/html' https://pypi.org/simple/tensorflow/ -o "$dir/tfidx/tensorflow/index.html"
    plats=(--platform manylinux2014_x86_64 --platform manylinux1_x86_64 --platform manylinux2010_x86_64)
    for n in $(seq 5 35); do plats+=(--platform "manylinux_2_${n}_x86_64"); done
    # shellcheck disable=SC2086  # the release list
    PYTHONPATH=$here ${PYTHON:-python3} "$here/tools/lab/wheel_groups.py" plan "$dir" $RELEASES
    for v in $RELEASES; do
      py=$(${PYTHON:-python3} -c 'import json, sys; print(json.load(open(sys.argv[1]))["python"])' "$dir/req/plan-$v.json")
      uv pip compile -q --python-version "$py" --python-platform x86_64-manylinux_2_28 "$dir/req/in-$v.txt" -o "$dir/req/out-$v.txt"
      grep '==' "$dir/req/out-$v.txt" | sed 's/ .*//' | xargs -P 8 -n 1 python3 -m pip download -q --no-deps \
        --only-binary=:all: --python-version "$py" "${plats[@]}" -d "$dir/wh"
    done
    du -sh "$dir/wh"
    ;;
  pieces)
    dir=${2:?folder} out=${3:?out}; shift 3; specs=("${@:?GROUP:RELEASE...}")
    rm -rf "$out" "$dir/groups" && mkdir -p "$out" "$dir/groups"
    size=$(bash "$here/tools/lab/pieces.sh" size)  # what fits beside the checkout in one call's carry
    ${PYTHON:-python3} "$here/tools/lab/wheel_groups.py" groups "$dir" "${specs[@]}"
    n=0
    for spec in "${specs[@]}"; do
      group=${spec%%:*}; tmp=$(mktemp -d)
      (cd "$dir" && tar -c -T "groups/$group.txt") | split -b "$size" -d -a 3 - "$tmp/$group.tar."
      for piece in "$tmp"/*; do
        mkdir -p "$out/$(printf %03d $n)" && mv "$piece" "$out/$(printf %03d $n)/" && n=$((n + 1))
      done
      rmdir "$tmp"
    done
    (cd "$out" && sha256sum -- */*.tar.*) >"$out/000/pieces.sha256"
    echo "$n pieces, $(du -sh "$out" | cut -f1)"
    ;;
  setup)
    mkdir -p /root/hs "$wh" /dev/shm/tmp && rm -rf "$src" && cp -a "$here" "$src"
    python3 -m pip install -q --no-index --no-deps --no-compile --target /root/hs "$here"/.host-wheels/*.whl
    mkdir -p /dev/shm/dkdata && ln -sfn /dev/shm/dkdata /tmp/dkdata  # the data root start-dockerd.sh names
    # shellcheck disable=SC1091
    source "${2:?bundle}/start-dockerd.sh" "$2" cdi
    docker info --format '{{json .}}' >"$work/docker-info.json"
    bash "$here/tools/lab/docker_gpu_images.sh" bases
    # the CUDA 12 runtime bases adhoc.py names: the 24.04 stand-in, and 22.04 (Python 3.10, for 2.15)
    docker tag harness-gpu/ubuntu-host:24.04 nvidia/cuda:12.8.1-runtime-ubuntu24.04
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >"$work/gpu.txt"
    python3 -m harness doctor 2>&1 | grep -i "container GPU access" || true
    echo "setup done"
    ;;
  collect)
    for piece in "${2:?folder}"/*.tar.*; do
      name=$(basename "$piece"); mkdir -p "/root/ptf/${name%%.tar.*}"; cp "$piece" "/root/ptf/${name%%.tar.*}/"
    done
    [ -f "$2/pieces.sha256" ] && cp "$2/pieces.sha256" /root/ptf/
    ls /root/ptf/*/ | grep -c tar
    ;;
  join)
    group=${2:?group}
    (cd /root/ptf && grep "/$group.tar." pieces.sha256 | sed 's|  [0-9]*/|  '"$group"'/|' | sha256sum --quiet -c -)
    cat /root/ptf/"$group"/"$group".tar.* | tar -C "$work" -x && rm -rf "/root/ptf/$group"
    if [ -f "$work/jammy.tar.xz" ]; then
      xz -dc "$work/jammy.tar.xz" | docker import -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        -c 'ENV NVIDIA_VISIBLE_DEVICES=all NVIDIA_DRIVER_CAPABILITIES=compute,utility' - nvidia/cuda:12.8.1-runtime-ubuntu22.04
      rm "$work/jammy.tar.xz"
    fi
    [ -d "$work/tfidx" ] && rm -rf /root/tfidx && mv "$work/tfidx" /root/tfidx
    ls "$wh" | wc -l
    ;;
  prebuild)
    shift
    (cd "$src" && TMPDIR=/dev/shm/tmp setsid python3 "$src/tools/lab/prebuild_pins.py" file:///root/tfidx "$wh" "$@" \
       >>"$work/prebuild.log" 2>&1 &)
    ;;
  sweep)
    out=${2:?results folder}; mkdir -p "$out"
    (cd "$src" && TMPDIR=/dev/shm/tmp setsid python3 -m harness sweep --package tensorflow --from 2.15.1 --to 2.21.0 \
       "${sweep_args[@]}" --repeat 2 --results "$out" >"$out.log" 2>&1 &)
    ;;
  resume)
    run=${2:?run folder}; name=$(basename "$run"); shift 2; mkdir -p "$work/res"
    [ -d "$work/res/$name" ] || cp -a "$run" "$work/res/$name"
    (cd "$src" && TMPDIR=/dev/shm/tmp setsid python3 -m harness sweep --resume "$work/res/$name" "${sweep_args[@]}" "$@" \
       >"$work/res/$name.log" 2>&1 &)
    ;;
  matrix)
    out=${2:?results folder}; mkdir -p "$out"
    (cd "$src" && TMPDIR=/dev/shm/tmp setsid python3 -m harness matrix --env tf-current --variant gpu --gpu-mode gpus \
       --backend docker --wheelhouse "$wh" --offline --results "$out" >"$out.log" 2>&1 &)
    ;;
  out)
    shift; mkdir -p "$OUT"
    tar -C "$work" -czf "$OUT/results.tgz" "$@" gpu.txt docker-info.json && ls -la "$OUT"
    ;;
  *) echo "unknown step $1" >&2; exit 2 ;;
esac
