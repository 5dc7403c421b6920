"""Rename the version a shared library defines, after patchelf gave it a new soname.

TF 1.8 binds every CUDA symbol with a version named after the soname it was linked against
(cublasSgemm_v2@libcublas.so.9.0), so a newer cuBLAS under the old file name is not enough: its
symbols are defined under libcublas.so.11. `patchelf --set-soname libcublas.so.9.0` adds the new
name to the library's string table; this points every version definition named OLD at it and
sets each such definition's hash to the new name's (patchelf renames some definitions itself but
leaves their hash the old name's, and the loader compares both), so the symbols are defined under
the new version too.
Runs in the image build (Python 2.7 and 3.5+, stdlib only).
Usage: rename_version.py LIBRARY OLD_NAME   (the soname patchelf set is the new name)
"""
import struct
import sys

DT_NULL, DT_STRTAB, DT_SONAME, DT_VERDEF, DT_VERDEFNUM = 0, 5, 14, 0x6FFFFFFC, 0x6FFFFFFD
PT_LOAD, PT_DYNAMIC = 1, 2


def elf_hash(name):
    value = 0
    for byte in bytearray(name):
        value = (value << 4) + byte
        high = value & 0xF0000000
        if high:
            value ^= high >> 24
        value &= ~high & 0xFFFFFFFF
    return value


def rename(data, old):
    """Point the version definitions named ``old`` at the soname; returns (new name, how many)."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF file")
    phoff = struct.unpack_from("<Q", data, 0x20)[0]
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    loads, dynamic = [], None
    for index in range(phnum):
        p_type, _, p_offset, p_vaddr, _, p_filesz = struct.unpack_from("<IIQQQQ", data, phoff + index * phentsize)
        if p_type == PT_LOAD:
            loads.append((p_vaddr, p_offset, p_filesz))
        elif p_type == PT_DYNAMIC:
            dynamic = (p_offset, p_filesz)

    def offset(address):
        for vaddr, file_offset, size in loads:
            if vaddr <= address < vaddr + size:
                return address - vaddr + file_offset
        raise ValueError("address %#x is in no loaded segment" % address)

    tags = {}
    for entry in range(dynamic[0], dynamic[0] + dynamic[1], 16):
        tag, value = struct.unpack_from("<qQ", data, entry)
        if tag == DT_NULL:
            break
        tags.setdefault(tag, value)
    strtab = offset(tags[DT_STRTAB])

    def string(at):
        return bytes(data[strtab + at:data.index(b"\0", strtab + at)])

    new, soname_at = string(tags[DT_SONAME]), tags[DT_SONAME]
    found, position = [], offset(tags[DT_VERDEF])
    for _ in range(tags[DT_VERDEFNUM]):
        _, _, _, _, _, vd_aux, vd_next = struct.unpack_from("<HHHHIII", data, position)
        found.append((position, vd_aux, string(struct.unpack_from("<I", data, position + vd_aux)[0])))
        position += vd_next
    if not any(name == old for _, _, name in found):
        return new, 0
    count = 0
    for position, vd_aux, name in found:
        # patchelf may already have pointed a definition at the new name, leaving its hash the old one's
        if name in (old, new):
            struct.pack_into("<I", data, position + 8, elf_hash(new))
            struct.pack_into("<I", data, position + vd_aux, soname_at)
            count += 1
    return new, count


def main():
    path, old = sys.argv[1], sys.argv[2].encode("ascii")
    with open(path, "rb") as handle:
        data = bytearray(handle.read())
    new, count = rename(data, old)
    if not count:
        sys.exit("%s defines no version %s" % (path, old.decode("ascii")))
    with open(path, "wb") as handle:
        handle.write(data)
    print("%s: %d version definition(s) %s -> %s" % (path, count, old.decode("ascii"), new.decode("ascii")))


if __name__ == "__main__":
    main()
