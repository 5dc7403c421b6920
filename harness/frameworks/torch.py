"""PyTorch."""
from __future__ import annotations

from harness.frameworks.framework import Framework

FRAMEWORK = Framework(
    name="torch",
    families=("torch",),
    distributions=("torch",),
    libraries=("transformers", "accelerate", "lightning", "pytorch_lightning", "diffusers", "ultralytics", "timm",
               "sentence_transformers", "torchvision", "torchaudio", "peft", "trl", "deepspeed", "bitsandbytes",
               "xformers", "vllm", "detectron2", "mmcv"),
    companions=(("<2.3", ("numpy<2",)),),  # wheels built against numpy 1.x
    # docs.pytorch.org/docs/stable/notes/cuda.html (memory management), torch/csrc/cuda
    variables=("PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF", "PYTORCH_NO_CUDA_MEMORY_CACHING",
               "PYTORCH_NVML_BASED_CUDA_CHECK"),
)
