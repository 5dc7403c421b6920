"""Rebuild wheels from the numbered pieces ../shared/tools/big-wheels cuts them into.

Usage: join_wheels.py PIECES_DIR OUT_DIR [SHA256_FILE]
Every wheel whose bytes have all arrived is written to OUT_DIR (checked against SHA256_FILE when
given); the pieces may still be arriving, so a wheel cut short by a missing piece is left for a
later call and named. Stdlib only: it runs on the GPU host before anything is installed.
"""
import hashlib
import os
import sys


def pieces(folder):
    names = sorted((n for n in os.listdir(folder) if n.isdigit()), key=int)
    for expected, name in enumerate(names):
        if int(name) != expected:
            return  # a gap: what follows cannot be placed yet
        with open(os.path.join(folder, name), "rb") as f:
            yield f.read()


def main(src, dst, sums_file=None):
    sums = {}
    if sums_file:
        for line in open(sums_file):
            digest, name = line.split()
            sums[name] = digest
    os.makedirs(dst, exist_ok=True)
    buf, done, short = bytearray(), 0, None
    stream = pieces(src)
    while True:
        while b"\n" not in buf[:300]:
            chunk = next(stream, None)
            if chunk is None:
                break
            buf += chunk
        if not buf:
            break
        head, _, rest = bytes(buf[:300]).partition(b"\n")
        name, size = head.decode().split()
        size = int(size)
        need = len(head) + 1 + size
        while len(buf) < need:
            chunk = next(stream, None)
            if chunk is None:
                short = name
                break
            buf += chunk
        if short:
            break
        body = bytes(buf[len(head) + 1:need])
        del buf[:need]
        if sums and hashlib.sha256(body).hexdigest() != sums.get(name):
            sys.exit(f"{name}: checksum differs from {sums_file}")
        path = os.path.join(dst, name)
        if not os.path.exists(path) or os.path.getsize(path) != size:
            with open(path + ".tmp", "wb") as f:
                f.write(body)
            os.replace(path + ".tmp", path)
        done += 1
    print(f"{done} wheels complete in {dst}" + (f"; {short} waits for more pieces" if short else ""))


if __name__ == "__main__":
    main(*sys.argv[1:4])
