"""TensorFlow (1.x and 2.x, Keras with it)."""
from __future__ import annotations

from harness.frameworks.framework import Framework


def _families(version: str) -> tuple[str, ...]:
    """TensorFlow 1.x runs the tf1 scenarios only; 2.x runs both (tf.compat.v1 keeps the tf1 API)."""
    return ("tf1",) if version.startswith("1.") else ("tf2", "tf1")


FRAMEWORK = Framework(
    name="tensorflow",
    families=("tf1", "tf2"),
    distributions=("tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tf-nightly", "intel-tensorflow"),
    libraries=("tf_keras", "tensorflow_hub", "tensorflow_datasets", "tensorflow_probability", "tensorflow_text",
               "tf2onnx"),
    companions=(
        ("<2.9", ("protobuf<3.20",)),  # protobuf 4 breaks TF's generated code
        ("<2.12", ("numpy<1.24",)),  # numpy 1.24 removed np.object, np.bool
        (">=2.12,<2.18", ("numpy<2",)),  # TF supports numpy 2 from 2.18
    ),
    reported_with=("keras",),
    # tensorflow.org/guide/gpu, tensorflow/core/common_runtime/gpu/gpu_device.cc, gpu_process_state.cc,
    # util/env_var.cc readers, TF's logging and XLA docs; Keras 3's backend (keras.io/getting_started)
    variables=("TF_FORCE_GPU_ALLOW_GROWTH", "TF_GPU_ALLOCATOR", "TF_FORCE_UNIFIED_MEMORY", "TF_GPU_HOST_MEM_LIMIT_IN_MB",
               "TF_ENABLE_GPU_GARBAGE_COLLECTION", "TF_GPU_THREAD_MODE", "TF_GPU_THREAD_COUNT", "TF_CUDNN_USE_AUTOTUNE",
               "TF_CUDNN_DETERMINISTIC", "TF_DETERMINISTIC_OPS", "TF_XLA_FLAGS", "TF_ENABLE_ONEDNN_OPTS",
               "TF_CPP_MIN_LOG_LEVEL", "TF_NUM_INTEROP_THREADS", "TF_NUM_INTRAOP_THREADS", "TF_USE_LEGACY_KERAS",
               "KERAS_BACKEND"),
    families_of_release=_families,
)
