"""The packages a report's code imports besides its framework, as pip installs them.

Memory reports import psutil to print RSS, matplotlib to plot it, tqdm for the loop; replayed without
them every cell ends in ``ModuleNotFoundError``. Each imported module that is not the standard library,
not the script's own and not a framework (nor numpy, which every framework brings at the release it
needs) is mapped to its distribution (``cv2`` -> opencv-python-headless, ``sklearn`` -> scikit-learn),
with the release the report states for it where it states one.
"""
from __future__ import annotations

import sys

from harness import frameworks
from harness.common.distributions import distribution

# never installed: the frameworks themselves and what each brings at the release it needs
BROUGHT = {"numpy", "keras", "jaxlib", "absl", "google", "six", "typing_extensions", "setuptools", "pkg_resources"}
# Python 2's standard library names that Python 3's list lacks (a TF 1.x report)
PY2_STDLIB = {"cPickle", "Queue", "urllib2", "urlparse", "commands", "ConfigParser", "StringIO", "cStringIO", "thread",
              "httplib", "HTMLParser", "__builtin__", "exceptions", "sets", "md5", "new", "future_builtins"}
_IPYTHON = {"IPython", "ipykernel", "google.colab"}  # what the notebook's kernel is


def others(modules: set[str], local: set[str] = frozenset(),  # type: ignore[assignment]
           brought: bool = False) -> list[str]:
    """The distributions ``modules`` (dotted import names) need beyond the framework, sorted; ``brought``: also
    what a framework would bring (numpy), for code that imports no framework."""
    stdlib = set(sys.stdlib_module_names) | PY2_STDLIB | {"__future__", "__main__"}
    found = set()
    for module in modules:
        if module.startswith(".") or module in _IPYTHON:
            continue
        top = module.split(".")[0]
        if top in stdlib or top in local or (top in BROUGHT and not brought) or top in _IPYTHON:
            continue
        if any(top in (f.name, *f.reported_with) for f in frameworks.all_frameworks()):
            continue
        found.add(distribution(top))
    return sorted(found, key=str.lower)


SUBJECTS = ("numpy", "pandas", "scipy", "scikit-learn", "Pillow", "opencv-python-headless")  # what a report is about


def subject(distributions: list[str]) -> str | None:
    """The package a report without a framework is about: the first of SUBJECTS it imports, else its first."""
    return next((s for s in SUBJECTS if s in distributions), distributions[0] if distributions else None)
