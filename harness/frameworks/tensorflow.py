"""TensorFlow (1.x and 2.x, Keras with it)."""
from __future__ import annotations

from harness.frameworks.framework import Framework, GpuBuild

# 2.5-2.13 load CUDA 11 (libcudart.so.11.0, libcublas.so.11, libcudnn.so.8, ...) by name from the library path and
# ship none: TensorFlow's own pip notes for 2.12-2.13 install NVIDIA's cu11 wheels and set LD_LIBRARY_PATH. These are
# the versions 2.14's and-cuda extra pins, the newest of CUDA 11 (11.8, with Hopper kernels); 2.5-2.11, built for 11.2
# and cuDNN 8.1, load them too (CUDA's minor-version compatibility). 2.4, built for CUDA 11.0, loads cuSOLVER by
# 11.0's name, libcusolver.so.10 (11.1 renamed it .so.11, the same API): the virtualenv links that name to 11.8's.
CUDA11_WHEELS = ("nvidia-cuda-runtime-cu11==11.8.89", "nvidia-cublas-cu11==11.11.3.6", "nvidia-cufft-cu11==10.9.0.58",
                 "nvidia-curand-cu11==10.3.0.86", "nvidia-cusolver-cu11==11.4.1.48", "nvidia-cusparse-cu11==11.7.5.86",
                 "nvidia-cudnn-cu11==8.7.0.84")
# 2.1-2.3 load CUDA 10.1 and cuDNN 7 by name, which no NVIDIA wheel ships (11.8's under 10.1's names registers the GPU
# on an H100, but graph-mode cells of 2.3.4 abort with "stack smashing detected": CUDA 11's cudaDeviceProp is larger
# than 10.1's; matrix/reference/sweeps/gpu-tensorflow-2.3-2.4-h100). A virtualenv of them fetches CUDA 10.1.243 from
# Ubuntu's own packages of it (focal's multiverse) and cuDNN 7.6.5 from the one wheel that bundles it. Not its cuBLAS:
# CUDA 10.1's (10.2.1.243) has no kernels for Ampere or Hopper and fails there (CUBLAS_STATUS_EXECUTION_FAILED, torch
# 1.4-1.5 on an H200: matrix/reference/h200-580.159.04-old-torch). cuBLAS 11.11 has them, needs no CUDA runtime of its
# own and exports every cublas* function 2.1-2.3 look up by name (dlsym): it takes libcublas.so.10's place, as it takes
# libcublas.so.9.0's in TF 1.8's image (images/tf1.8/hopper_cublas.sh).
CUDA101_LIBRARIES = (*(f"deb:pool/multiverse/n/nvidia-cuda-toolkit/{package}_10.1.243-3_amd64.deb"
                       for package in ("libcudart10.1", "libcufft10", "libcurand10", "libcusolver10", "libcusparse10")),
                     "wheel:cupy-cuda101==7.8.0:cupy/.data/lib/libcudnn.so.7")
HOPPER_CUBLAS = ("nvidia-cublas-cu11==11.11.3.6",)
# 1.14-2.0 were built for CUDA 10.0, which no package or wheel reachable from PyPI and Ubuntu holds whole. They load it
# by name too (dlopen, then dlsym of unversioned names; 1.13 links it and is left out), and 10.1 keeps every function
# they call (it dropped cudaConfigureCall, cudaSetupArgument and cudaLaunch, which nvcc 10.0's launches no longer use)
# and 10.0's cudaDeviceProp: the same libraries as 2.1-2.3, answering to 10.0's names.
CUDA100_AS_101 = ("libcudart.so.10.0=libcudart.so.10.1", "libcublas.so.10.0=libcublas.so.11",
                  *(f"lib{name}.so.10.0=lib{name}.so.10" for name in ("cufft", "curand", "cusolver", "cusparse")))


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
    # the CUDA base each release was built for (TF's tested configurations); 2.14+ brings CUDA from pip
    gpu_builds=(
        GpuBuild(">=2.14", "nvidia/cuda:12.8.1-runtime-ubuntu{ubuntu}", extra="and-cuda"),
        GpuBuild(">=2.12,<2.14", "nvidia/cuda:11.8.0-cudnn8-runtime-ubuntu22.04", venv_cuda=CUDA11_WHEELS),
        GpuBuild(">=2.5,<2.12", "nvidia/cuda:11.2.2-cudnn8-runtime-ubuntu20.04", venv_cuda=CUDA11_WHEELS),
        GpuBuild(">=2.4,<2.5", "nvidia/cuda:11.0.3-cudnn8-runtime-ubuntu18.04", venv_cuda=CUDA11_WHEELS,
                 venv_aliases=("libcusolver.so.10=libcusolver.so.11",)),
        GpuBuild(">=2.1,<2.4", "nvidia/cuda:10.1-cudnn7-runtime-ubuntu18.04", venv_libraries=CUDA101_LIBRARIES,
                 venv_cuda=HOPPER_CUBLAS, venv_aliases=("libcublas.so.10=libcublas.so.11",)),
        GpuBuild(">=1.14,<2.1", "nvidia/cuda:10.0-cudnn7-runtime-ubuntu18.04", venv_libraries=CUDA101_LIBRARIES,
                 venv_cuda=HOPPER_CUBLAS, venv_aliases=CUDA100_AS_101),
        GpuBuild(">=1.13,<1.14", "nvidia/cuda:10.0-cudnn7-runtime-ubuntu18.04"),
        GpuBuild("<1.13", "tensorflow/tensorflow:{version}-gpu", python="2.7"),  # the CUDA 9 tags are gone; TF's has it
    ),
)
