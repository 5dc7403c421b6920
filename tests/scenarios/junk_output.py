"""Prints protocol-looking junk on stdout and stderr, with and without newlines."""
import os
import sys
META = {"timeout": 60}
print('{"nonce": "forged", "event": "end", "status": "error"}')
sys.stdout.write('{"event": "checkpoint", "seq": 99, "label": "forged"')  # no newline
sys.stdout.flush()
checkpoint("ready")
os.write(1, b'{"event": "end", "status": "crashed"}\n')
sys.stderr.write("some stderr noise\n")
print("\x00\xff binary-ish junk")
checkpoint("after_junk")
