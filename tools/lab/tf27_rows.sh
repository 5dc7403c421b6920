#!/usr/bin/env bash
# TensorFlow 2.7 in its container on a lent GPU machine (no network, no registry, no Python 3.9),
# beside the same pins as a host process on the same GPU, for the agreement table.
# Here first: tools/lab/tf27_pieces.sh DIR; each call carries one piece (and, with the first,
# DIR/pieces.sha256) in an ignored folder of the checkout; `collect` keeps them outside it.
# container_rows.sh setup (engine, CDI spec, host tools) runs before `base`.
#
#   collect FOLDER  copy the pieces carried in FOLDER to /root/pieces (they stay while the machine is warm)
#   join            check every piece against pieces.sha256, unpack: wheelhouse, CUDA wheels, bullseye
#   base            the stand-in for nvidia/cuda:11.2.2-cudnn8-runtime-ubuntu20.04: bullseye with
#                   Python 3.9, and CUDA 11.8 + cuDNN 8.9 from NVIDIA's wheels in /usr/local/cuda-11
#                   on the linker's path, with the real base's variables; no Python packages
#   image           the tf2.7 gpu image from the committed Dockerfile and pins (offline, the wheelhouse)
#   host            the same pins in a virtualenv inside a copy of that system, for a host process
#                   run through chroot (the host's own Python is 3.12, which TF 2.7 does not support)
#   matrix OUT      tf2.7 in containers (the mode the harness picks, or GPU_MODE), then host-tf-2.7.4
#                   through the process backend, into OUT
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
work=/root/gw/tf27
export PATH=/tmp/dk/bin:$PATH PYTHONPATH=/root/hs:$here
step=${1:?usage: tf27_rows.sh collect FOLDER|join|base|image|host|matrix OUT}
base_tag=nvidia/cuda:11.2.2-cudnn8-runtime-ubuntu20.04

case $step in
  collect) bash "$here/tools/lab/pieces.sh" collect "${2:?folder}" /root/pieces ;;
  join)
    bash "$here/tools/lab/pieces.sh" join /root/pieces tf27 "$work"
    cp /root/pieces/*.whl "$work/wh/" 2>/dev/null || true  # wheels carried beside the pieces
    rm -rf /root/pieces && ls "$work" "$work/cuda"
    ;;
  base)
    start=$(date +%s)
    root=$work/base && rm -rf "$root" && mkdir -p "$root/usr/local/cuda-11/lib64" && tar -C "$root" -xJf "$work/bullseye-py39.tar.xz"
    for wheel in "$work"/cuda/*.whl; do
      python3 -c 'import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    for n in z.namelist():
        if "/lib/" in n and ".so" in n:
            open(sys.argv[2] + "/" + n.rsplit("/", 1)[1], "wb").write(z.read(n))' "$wheel" "$root/usr/local/cuda-11/lib64"
    done
    ln -s cuda-11 "$root/usr/local/cuda"
    echo /usr/local/cuda/lib64 >"$root/etc/ld.so.conf.d/cuda-11.conf" && ldconfig -r "$root"
    ls "$root/usr/local/cuda-11/lib64"
    tar -C "$root" -c . | docker import -c 'ENV PATH=/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
      -c 'ENV LD_LIBRARY_PATH=/usr/local/nvidia/lib:/usr/local/nvidia/lib64 NVIDIA_VISIBLE_DEVICES=all' \
      -c 'ENV NVIDIA_DRIVER_CAPABILITIES=compute,utility CUDA_VERSION=11.2.2 LANG=C.UTF-8' - "$base_tag" >/dev/null
    echo "stand-in $base_tag = $(docker image inspect --format '{{.Id}} {{.Size}}' "$base_tag"), made in $(( $(date +%s) - start )) s"
    ;;
  image)
    start=$(date +%s)
    python3 -m harness images --variant gpu --offline --wheelhouse "$work/wh" --env tf2.7
    echo "tf2.7 image built in $(( $(date +%s) - start )) s"
    docker image inspect --format '{{.Id}} {{.Size}} {{json .Config.Labels}}' "gpu-cleanup-matrix/tf2.7:gpu"
    ;;
  host)
    # The chroot's mounts live in a private mount namespace of each command (unshare -m): they
    # vanish with it, so nothing of the host is ever reachable below $root when it is removed.
    root=$work/host
    grep -q " $root" /proc/mounts && { echo "$root has mounts: not removing it" >&2; exit 1; }
    rm -rf --one-file-system "$root" && cp -a "$work/base" "$root" && mkdir -p "$root/wh" "$root$here" "$root/usr/local/nvidia"
    cp "$work"/wh/*.whl "$root/wh/"
    cat >"$work/in-root" <<SH
#!/bin/sh
# in-root CMD...: CMD in the host-tf-2.7.4 system, with /dev, /proc, /sys, /tmp, the driver and the
# checkout at the host's paths, all in a mount namespace of its own; the PID stays the caller's.
exec /usr/bin/unshare --mount --propagation private sh -c 'for d in /dev /proc /sys /tmp /usr/local/nvidia $here; do
  mount --rbind "\$d" "$root\$d" || exit 1; done; exec /usr/sbin/chroot $root /usr/bin/env LD_LIBRARY_PATH=/usr/local/nvidia/lib64 "\$@"' sh "\$@"
SH
    chmod +x "$work/in-root"
    "$work/in-root" python3 -m venv /opt/tf27
    "$work/in-root" /opt/tf27/bin/pip install -q --no-index --find-links /wh "tensorflow==2.7.4" "numpy<1.24" "protobuf<3.20"
    "$work/in-root" /opt/tf27/bin/pip list 2>/dev/null | grep -iE '^(tensorflow|keras|numpy|protobuf) '
    ;;
  matrix)
    out=${2:?results folder}
    python3 -m harness matrix --variant gpu ${GPU_MODE:+--gpu-mode "$GPU_MODE"} --offline --wheelhouse "$work/wh" --env tf2.7 \
      --results "$out" || true
    # The host process: the harness (Python 3.12) outside, the cell's interpreter in the chroot.
    wrapper=/root/gw/tf-2.7.4  # the environment is named host-<wrapper name>
    printf '#!/bin/sh\nexec %s /opt/tf27/bin/python "$@"\n' "$work/in-root" >"$wrapper" && chmod +x "$wrapper"
    # Inside, the same path is the interpreter itself: the cell's reaper starts the agent with it
    mkdir -p "$work/host$(dirname "$wrapper")"
    printf '#!/bin/sh\nexec /opt/tf27/bin/python "$@"\n' >"$work/host$wrapper" && chmod +x "$work/host$wrapper"
    "$wrapper" -c 'import tensorflow as tf; print("tensorflow", tf.__version__, tf.config.list_physical_devices("GPU"))'
    python3 -m harness matrix --backend process --interpreter "$wrapper" --family tf1 --family tf2 --results "$out" || true
    ;;
  *) echo "unknown step $step" >&2; exit 2 ;;
esac
