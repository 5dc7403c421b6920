"""A script whose memory depends on the release of `six` it runs with: planted at 1.15 (tests bisect)."""
import gc
import six

major, minor = (int(p) for p in six.__version__.split(".")[:2])
kept = []
for step in range(3):
    block = bytearray(96 << 20)
    if (major, minor) >= (1, 15):
        kept.append(block)  # the "regression": each step's block stays referenced
    del block
    gc.collect()
print("six", six.__version__, "kept", len(kept))
