"""PyTorch."""
from __future__ import annotations

from harness.frameworks.framework import Framework

FRAMEWORK = Framework(
    name="torch",
    pool_grows_lazily=True,
    families=("torch",),
    distributions=("torch",),
    libraries=("transformers", "accelerate", "lightning", "pytorch_lightning", "diffusers", "ultralytics", "timm",
               "sentence_transformers", "torchvision", "torchaudio", "peft", "trl", "deepspeed", "bitsandbytes",
               "xformers", "vllm", "detectron2", "mmcv"),
    # <2.3: wheels built against numpy 1.x. From 2.3 torch does not require numpy, but bug reports
    # build tensors with torch.from_numpy, and without numpy torch 2.3.1 keeps a torch.compile(eager)
    # model's weights that it frees with it: a user's environment has numpy.
    companions=(("<2.3", ("numpy<2",)), (">=2.3", ("numpy",))),
    # docs.pytorch.org/docs/stable/notes/cuda.html (memory management), torch/csrc/cuda
    variables=("PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF", "PYTORCH_NO_CUDA_MEMORY_CACHING",
               "PYTORCH_NVML_BASED_CUDA_CHECK"),
    local_index="https://download.pytorch.org/whl/{local}",  # torch==1.7.1+cu110; +cpu: the CPU-only build
    cpu_local="cpu",
)
