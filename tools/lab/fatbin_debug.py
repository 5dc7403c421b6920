"""Where the fat binary reader and cuobjdump disagree on a library: every container the reader
passes over, with why, and the PTX entries it finds (run on the GPU host beside cuobjdump)."""
import struct
import sys

MAGICS = {0xBA55ED50: "executable", 0x466243B1: "relocatable"}
data = open(sys.argv[1], "rb").read()
for magic, kind in MAGICS.items():
    print(kind, hex(magic), data.count(struct.pack("<I", magic)), "occurrences")
at = data.find(struct.pack("<I", 0xBA55ED50))
shown = 0
while at != -1:
    version, header, size = struct.unpack_from("<HHQ", data, at + 4)
    if version == 1 and header == 16:
        entry, end = at + 16, at + 16 + size
        while entry + 64 <= end:
            kind, esize, padded = struct.unpack_from("<H2xIQ", data, entry)
            arch = struct.unpack_from("<I", data, entry + 28)[0]
            if esize not in (64, 80, 112) or not 10 <= arch <= 200 or kind not in (1, 2, 0x10, 0x40):
                if shown < 12:
                    print("rejected container at", at, "entry at", entry - at, "kind", kind, "size", esize, "arch", arch,
                          data[entry:entry + 64].hex())
                    shown += 1
                break
            if kind == 1 and arch >= 100:
                print("ptx", arch, "entry size", esize, "at", at)
            entry += esize + padded
    at = data.find(struct.pack("<I", 0xBA55ED50), at + 4)
