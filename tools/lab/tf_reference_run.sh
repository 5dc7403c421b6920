#!/usr/bin/env bash
# TensorFlow's reference on a GPU host without Docker: TensorFlow and its own CUDA 12 wheels
# installed into SITE_DIR (pip --target), run through the process backend with NVML. A wrapper
# interpreter puts SITE_DIR and its nvidia/*/lib folders in front, so the cells run on exactly
# those libraries; the environment is named host-tf-<version>.
#
# Usage: tools/lab/tf_reference_run.sh SITE_DIR RESULTS_DIR [matrix options, e.g. --scenario 'tf1/*']
#   TF_PYTHON    the interpreter TF was installed for (default python3; for TF 2.7 a Python 3.9)
#   HOST_PYTHON  the interpreter that runs the harness itself (default python3, 3.10+)
set -euo pipefail
site=$(cd "${1:?usage: tf_reference_run.sh SITE_DIR RESULTS_DIR [options]}" && pwd)
results=${2:?results dir}; shift 2
export PYTHONUNBUFFERED=1 NO_COLOR=1 COLUMNS=170
py=${HOST_PYTHON:-python3}
tfpy=${TF_PYTHON:-$py}
libs=$(find "$site/nvidia" -maxdepth 2 -name lib -type d 2>/dev/null | sort | paste -sd: -)
version=$(PYTHONPATH=$site "$py" -c 'import importlib.metadata as m; print(m.version("tensorflow"))')
wrapper_dir=$(mktemp -d)
wrapper=$wrapper_dir/tf-$version
cat >"$wrapper" <<WRAP
#!/bin/sh
export PYTHONPATH="$site\${PYTHONPATH:+:\$PYTHONPATH}" LD_LIBRARY_PATH="$libs\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
exec "$(command -v "$tfpy")" "\$@"
WRAP
chmod +x "$wrapper"
"$wrapper" -c 'import tensorflow as tf; print("tensorflow", tf.__version__, tf.sysconfig.get_build_info().get("cuda_version"), tf.config.list_physical_devices("GPU"))'
"$py" -m harness matrix --backend process --interpreter "$wrapper" --family tf1 --family tf2 --results "$results" "$@"
