"""GPU memory cleanup matrix: does this cleanup really give GPU memory back, in this version?"""
from __future__ import annotations

__version__ = "0.1.0"
__all__ = ["__version__"]
