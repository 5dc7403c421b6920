"""CuPy (a wheel per CUDA major: cupy-cuda12x ...)."""
from __future__ import annotations

from harness.frameworks.framework import Framework, GpuBuild

# What a virtualenv of a CUDA 11.2+ build loads by name (its image has them from the CUDA base): the runtime, NVRTC
# (CuPy compiles its kernels with it at run time; 11.2-11.8 keep the soname libnvrtc.so.11.2) and the math libraries
# it links, CUDA 11.8's (Hopper's kernels). The 11.0 and 11.1 builds load NVRTC by their own minor's name.
CUDA11_WHEELS = ("nvidia-cuda-runtime-cu11==11.8.89", "nvidia-cuda-nvrtc-cu11==11.8.89", "nvidia-cublas-cu11==11.11.3.6",
                 "nvidia-cufft-cu11==10.9.0.58", "nvidia-curand-cu11==10.3.0.86", "nvidia-cusolver-cu11==11.4.1.48",
                 "nvidia-cusparse-cu11==11.7.5.86")

CUDA11_BASE, CUDA11_UBUNTUS = "nvidia/cuda:11.8.0-runtime-ubuntu{ubuntu}", ("22.04", "20.04", "18.04")

FRAMEWORK = Framework(
    name="cupy",
    pool_grows_lazily=True,
    families=("cupy",),
    distributions=("cupy", "cupy-cuda*"),
    libraries=("cupyx",),
    imports_without_cuda=">=13",  # cupy-cuda112 8.6.0 without CUDA: "libcublas.so.11: cannot open shared object file"
    needs_gpu="CuPy has no CPU build: it needs an NVIDIA GPU and driver",
    # CuPy 8 states only numpy>=1.15 and imports numpy.MachAr, which 1.24 removed (9 caps numpy itself)
    companions=(("<9", ("numpy<1.24",)),),
    # docs.cupy.dev/en/stable/reference/environment.html
    variables=("CUPY_GPU_MEMORY_LIMIT", "CUPY_ACCELERATORS", "CUPY_CACHE_DIR", "CUPY_CUDA_PER_THREAD_DEFAULT_STREAM",
               "CUPY_TF32"),
    # a CUDA 11 build on CUDA 11.8's runtime base where Ubuntu has one (no 24.04 image of it), else CUDA 12's
    # CuPy 8 includes cuda_fp16.h from CUDA_PATH (9 bundles its own): the runtime wheel's, as NVRTC 11.8 reads them
    gpu_builds=(GpuBuild("<9", CUDA11_BASE, distribution="cupy-cuda11[2x]", ubuntus=CUDA11_UBUNTUS, venv_cuda=CUDA11_WHEELS,
                         venv_cuda_path="nvidia/cuda_runtime"),
                GpuBuild("", CUDA11_BASE, distribution="cupy-cuda11[2x]", ubuntus=CUDA11_UBUNTUS, venv_cuda=CUDA11_WHEELS),
                GpuBuild("", CUDA11_BASE, distribution="cupy-cuda11*", ubuntus=CUDA11_UBUNTUS)),
)
