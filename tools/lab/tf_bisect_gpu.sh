#!/usr/bin/env bash
# TensorFlow 2.7.4 .. 2.13.1 bisected on a lent GPU machine (no network, no Docker, Python 3.12
# only) through the venv backend, each release in a virtualenv of its gpu plan's Python (3.8 up to
# 2.11, 3.10 from 2.12), and TensorFlow's own helpers searched on the GPU (tests/fidelity/gpu).
#
# Here first (PyPI, Debian and Ubuntu's archive reachable):
#   python3.8 (focal) and python3.10 (jammy) from Ubuntu's packages, unpacked: DIR/py38-focal.tar.xz,
#   DIR/py310-jammy.tar.xz (focal's ensurepip reads its own wheel folder, python-wheels-3.8, holding
#   jammy's pip 22: pip 20 knows no manylinux_2_28 wheels); CUDA 11.8 and cuDNN 8.7 from NVIDIA's
#   wheels, their libraries unpacked (cuDNN's convolution and RNN parts left out: Dense layers never
#   load them, and cuDNN loads them only on use): DIR/cuda11-lib.tar.xz; each release's wheels as
#   sweep's plan resolves them (tools/lab/wheel_groups.py plan, uv pip compile) in DIR/wh, and an
#   index page listing the releases searched (DIR/idx).
#   index DIR RELEASE:PY...  DIR/idx, the index page of those releases' wheels (2.7.4:cp38 ... 2.14.1:cp310)
#   cut DIR OUT              OUT/base/ (Pythons, CUDA, index, every small wheel) and OUT/<release>/ (its
#                            TensorFlow wheel; jax, jaxlib, scipy for 2.12.1): pieces (pieces.sh size)
# There, one step per call (the carried folder is .whl/ of the checkout):
#   collect GROUP            .whl/* into /root/pc/GROUP (kept while the machine is warm)
#   join GROUP               checked and unpacked into /root/tfb; base: the Pythons into /, CUDA libraries
#                            in /root/cuda11/lib, the harness's own wheels into /root/hs
#   bisect OUT [BAD]         (background) the bisect of keras_loop.py from 2.7.4 to BAD (2.13.1), progress in OUT.log
#   repro OUT RELEASE SCRIPT...  (background) repro of each script in RELEASE's virtualenv
#   interp OUT RELEASE SCRIPT    (background) repro through --interpreter of a virtualenv of RELEASE
#                            alone (2.14.1 without and-cuda)
#   out FOLDER...            what to bring back, as $OUT/results.tgz
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
src=/root/src  # what runs in the background runs from a copy: the checkout is replaced at every call
tfb=/root/tfb
export NCCL_NVLS_ENABLE=0
# The harness finds its packages through sys.path, not PYTHONPATH: every cell inherits the harness's
# environment, and a PYTHONPATH of Python 3.12 wheels would reach the releases' Python 3.8 too.
harness=(python3 -c "import runpy, sys; sys.path[:0] = ['/root/hs', '$src']; runpy.run_module('harness', run_name='__main__', alter_sys=True)")
# The CUDA 11 libraries for every release; lazy module loading (CUDA >= 11.7): the PTX these releases
# carry for pre-Hopper GPUs is JIT-compiled per kernel used, not whole at the first start (minutes);
# the cache keeps what was compiled for the next cell.
cell_env=(--setenv LD_LIBRARY_PATH=/root/cuda11/lib --setenv CUDA_MODULE_LOADING=LAZY
          --setenv CUDA_CACHE_MAXSIZE=4294967296)
common=(--backend venv --variant gpu --venv-dir /root/venvs --index-url "file://$tfb/idx" --wheelhouse "$tfb/wh"
        --offline "${cell_env[@]}")

copy_src() { rm -rf "$src" && mkdir -p "$src" && cp -a "$here"/. "$src"/ && rm -rf "$src/.whl"; }

case ${1:?usage: tf_bisect_gpu.sh index DIR RELEASE:PY...|cut DIR OUT|collect GROUP|join GROUP|bisect OUT|repro OUT RELEASE SCRIPT...|interp OUT RELEASE SCRIPT|out FOLDER...} in
  cut)
    dir=$(cd "${2:?dir}" && pwd) out=$(mkdir -p "${3:?out}" && cd "$3" && pwd)
    rm -rf "$out/stage" && mkdir -p "$out/stage/base/wh"
    xargs -a "$dir/small.txt" -I{} ln -f "$dir/wh/{}" "$out/stage/base/wh/{}"
    cp -a "$dir/idx" "$dir/py38-focal.tar.xz" "$dir/py310-jammy.tar.xz" "$dir/cuda11-lib.tar.xz" "$out/stage/base/"
    (cd "$out/stage/base" && bash "$here/tools/lab/pieces.sh" cut "$out/base" base wh idx py38-focal.tar.xz \
      py310-jammy.tar.xz cuda11-lib.tar.xz)
    for release in 2.7.4 2.8.4 2.9.3 2.10.1 2.11.1 2.12.1 2.13.1; do
      mkdir -p "$out/stage/$release/wh" && ln -f "$dir"/wh/tensorflow-"$release"-*.whl "$out/stage/$release/wh/"
      if [ "$release" = 2.12.1 ]; then
        for name in jax-0.4.38 jaxlib-0.4.38 scipy-1.15.3 scipy-1.10.1; do ln -f "$dir"/wh/"$name"-*.whl "$out/stage/$release/wh/" 2>/dev/null || true; done
      fi
      (cd "$out/stage/$release" && bash "$here/tools/lab/pieces.sh" cut "$out/$release" "$release" wh)
    done
    # 2.14.1 without its and-cuda extra (2.4 GB with TensorRT): its wheel and the pins no other group carries
    mkdir -p "$out/stage/2.14.1/wh"
    grep -h '==' "$dir/req/out-2.14.1.txt" | sed 's/ .*//' | grep -viE '^(nvidia|tensorrt)' | while IFS='=' read -r name _ version; do
      for wheel in "$dir"/wh/"$(echo "$name" | tr '-' '_')"-"$version"-*.whl "$dir"/wh/"$name"-"$version"-*.whl; do
        if [ -f "$wheel" ] && ! grep -qx "$(basename "$wheel")" "$dir/small.txt"; then ln -f "$wheel" "$out/stage/2.14.1/wh/"; fi
      done
    done
    (cd "$out/stage/2.14.1" && bash "$here/tools/lab/pieces.sh" cut "$out/2.14.1" 2.14.1 wh)
    # and what its and-cuda extra pins (NVIDIA's CUDA 11 wheels and TensorRT), for bisect's own 2.14.1
    mkdir -p "$out/stage/and-cuda/wh"
    grep -h '==' "$dir/req/out-2.14.1.txt" | sed 's/ .*//' | grep -iE '^(nvidia|tensorrt)' | while IFS='=' read -r name _ version; do
      ln -f "$dir"/wh/"$(echo "$name" | tr '-' '_')"-"$version"-*.whl "$out/stage/and-cuda/wh/"
    done
    (cd "$out/stage/and-cuda" && bash "$here/tools/lab/pieces.sh" cut "$out/and-cuda" and-cuda wh)
    ;;
  index)
    # DIR/idx: the index's page for tensorflow with only RELEASE:PYTHON's wheels (cp38, cp310), so a
    # bisect searches those releases; from the saved page (DIR/tfidx, curl with Accept: text/html)
    dir=${2:?dir}; shift 2
    python3 - "$dir" "$@" <<'PY'
import re, sys
from pathlib import Path
folder, wanted = Path(sys.argv[1]), dict(arg.split(":") for arg in sys.argv[2:])
page = (folder / "tfidx" / "tensorflow" / "index.html").read_text()
head, _, rest = page.partition("<body>")
keep = [a for a in re.findall(r"<a [^>]*>[^<]*</a>", rest)
        if (m := re.search(r">tensorflow-([\d.]+)-(cp\d+)-\2-manylinux[^<]*_x86_64\.whl<", a)) and wanted.get(m.group(1)) == m.group(2)]
(folder / "idx" / "tensorflow").mkdir(parents=True, exist_ok=True)
(folder / "idx" / "tensorflow" / "index.html").write_text(head + "<body>\n" + "\n".join(keep) + "\n</body></html>\n")
print(len(keep), "wheels listed")
PY
    ;;
  collect) bash "$here/tools/lab/pieces.sh" collect "$here/.whl" "/root/pc/${2:?group}" ;;
  join)
    group=${2:?group}
    bash "$here/tools/lab/pieces.sh" join "/root/pc/$group" "$group" "$tfb/$group"
    mkdir -p "$tfb/wh" && mv "$tfb/$group"/wh/*.whl "$tfb/wh/"
    if [ "$group" = base ]; then
      for t in py38-focal py310-jammy; do tar -C / -xJf "$tfb/base/$t.tar.xz"; done
      ldconfig
      mkdir -p /root/cuda11 && tar -C /root/cuda11 -xJf "$tfb/base/cuda11-lib.tar.xz"
      rm -rf "$tfb/idx" && mv "$tfb/base/idx" "$tfb/idx"
      python3 -m pip install -q --no-index --no-deps --target /root/hs "$here"/.host-wheels/*.whl
      python3.8 -c 'import sys; print(sys.version)' && python3.10 -c 'import sys; print(sys.version)'
      ls /root/cuda11/lib
    fi
    ls "$tfb/wh" | grep -c . && df -h /root | tail -1
    ;;
  bisect)
    out=${2:?results folder}; copy_src
    mkdir -p "$out" && cd "$src"
    setsid nohup "${harness[@]}" bisect "$src/matrix/reference/h100-580.159.04-tf-bisect/keras_loop.py" \
      --package tensorflow --good 2.7.4 --bad "${3:-2.13.1}" --criterion growth --threshold 0.5 "${common[@]}" \
      --results "$out" >"$out.log" 2>&1 </dev/null &
    ;;
  repro)
    out=${2:?results folder} release=${3:?release}; shift 3; copy_src
    mkdir -p "$out" && cd "$src"
    {
      for s in "$@"; do
        printf '%q ' "${harness[@]}"; printf 'repro %q --with tensorflow==%q' "$src/$s" "$release"
        printf ' %q' "${common[@]}" --results "$out"; echo
      done
    } >"$out.sh"
    setsid nohup bash "$out.sh" >"$out.log" 2>&1 </dev/null &
    ;;
  interp)
    # a release's own virtualenv (tensorflow==RELEASE, numpy<2: no and-cuda), the script through
    # repro --interpreter with the same CUDA libraries
    out=${2:?results folder} release=${3:?release} script=${4:?script}; copy_src
    venv=/root/venvs/tf-$release
    [ -x "$venv/bin/python" ] || { python3.10 -m venv "$venv" && "$venv/bin/pip" install -q --disable-pip-version-check \
      --no-index --find-links "$tfb/wh" "tensorflow==$release" "numpy<2"; }
    cd "$src" && setsid nohup "${harness[@]}" repro "$src/$script" --interpreter "$venv/bin/python" "${cell_env[@]}" \
      --results "$out" >"$out.log" 2>&1 </dev/null &
    ;;
  out)
    shift; tar -czf "$OUT/results.tgz" "$@"
    ;;
  *) echo "unknown step $1" >&2; exit 2 ;;
esac
