"""A script whose process ends 15 s after its last line (a non-daemon thread finishing)."""
import threading
import time

worker = threading.Thread(target=time.sleep, args=(15,))
worker.start()
print("FIDELITY last line")
