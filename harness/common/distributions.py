"""The pip distribution of an import name, where they differ: what ``--pip`` and a report's other imports
install, and what the judge names as the fix when a script imports a module its environment lacks."""
from __future__ import annotations

# import name -> distribution, where they differ (a headless OpenCV: the cells have no display)
DISTRIBUTIONS = {"cv2": "opencv-python-headless", "sklearn": "scikit-learn", "PIL": "Pillow", "yaml": "PyYAML",
                 "skimage": "scikit-image", "bs4": "beautifulsoup4", "attr": "attrs", "dateutil": "python-dateutil",
                 "Crypto": "pycryptodome", "serial": "pyserial", "google": "protobuf", "memory_profiler": "memory-profiler",
                 "tensorflow_datasets": "tensorflow-datasets", "tensorflow_hub": "tensorflow-hub",
                 "tensorflow_addons": "tensorflow-addons", "tensorflow_probability": "tensorflow-probability",
                 "pytorch_lightning": "pytorch-lightning", "torch_geometric": "torch-geometric", "gi": "PyGObject",
                 "OpenGL": "PyOpenGL", "pkg_resources": "setuptools", "faiss": "faiss-cpu", "umap": "umap-learn"}


def distribution(module: str) -> str:
    """The pip name of a top-level import name."""
    return DISTRIBUTIONS.get(module, module.replace("_", "-"))
