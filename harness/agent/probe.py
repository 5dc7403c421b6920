"""Which frameworks an environment has, and their versions: printed as one JSON line.

Usage: python probe.py NAME... (the import names to try, from the host's framework registry).
Runs inside an image (bring-your-own environments whose API family is not declared): stdlib
only, Python 2.7 and 3.5+. Importing is the honest test; a framework that fails to import is
absent.
"""
from __future__ import print_function

import json
import sys

found = {}
for name in sys.argv[1:]:
    try:
        module = __import__(name)
        found[name] = str(getattr(module, "__version__", "?"))
    except Exception:
        pass
print(json.dumps({"python": sys.version.split()[0], "frameworks": found}))
