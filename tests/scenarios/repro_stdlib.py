# A script with every kind of cleanup statement the agent marks, using the stdlib only.
import gc


def work():
    block = bytearray(256 * 1024 * 1024)
    block[::4096] = b"\x01" * len(block[::4096])
    del block


data = [bytearray(128 * 1024 * 1024)]
work()
try:
    data = None
finally:
    gc.collect()
for _ in range(2):
    gc.collect()
print("done")
