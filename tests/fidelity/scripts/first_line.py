"""What a script finds at its first line: modules loaded, threads, sys.path[0], __main__, argv."""
import os
import sys
import threading

print("FIDELITY modules %s" % sorted(sys.modules))
print("FIDELITY threads %d %s" % (threading.active_count(), [t.name for t in threading.enumerate()]))
print("FIDELITY path0 is the script's folder: %s" % (sys.path[0] == os.path.dirname(os.path.abspath(__file__))))
print("FIDELITY __main__ is this file: %s, __name__ %s" % (sys.modules["__main__"].__file__ == __file__, __name__))
print("FIDELITY argv %s" % [os.path.basename(a) for a in sys.argv])
print("FIDELITY PYTHONUNBUFFERED %r" % os.environ.get("PYTHONUNBUFFERED"))
