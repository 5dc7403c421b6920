"""Where cells run: environment definitions and pins, the package index, images, virtualenvs, GPU access, host checks."""
