"""A stand-in library under an old CUDA soname that forwards every call to a newer library.

TF 1.8 binds each CUDA symbol with a version named after the soname it was linked against
(cublasSgemm_v2@libcublas.so.9.0), so a symlink to a newer library does not load. This writes
and compiles a library with that soname and version whose functions jump to the newer one's
(resolved once, at load); a function the newer library lacks aborts with its library's name.
Usage: make_shim.py SONAME TARGET SYMBOLS_FILE OUT_DIR   (libcublas.so.9.0 libcublas.so.11 cublas.txt out)
Runs with Python 3.5+ and gcc on the system the stand-in is for (its glibc).
"""
import string
import subprocess
import sys
from pathlib import Path

C_TEMPLATE = string.Template("""#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
void *${stem}_ptrs[$n];
static const char *names[$n] = {$quoted};
static void missing(void) { fprintf(stderr, "stand-in $soname: a function $target lacks was called\\n"); abort(); }
__attribute__((constructor)) static void load(void) {
  void *h = dlopen("$target", RTLD_NOW | RTLD_GLOBAL);
  if (!h) { fprintf(stderr, "stand-in $soname: %s\\n", dlerror()); abort(); }
  for (int i = 0; i < $n; i++) { void *p = dlsym(h, names[i]); ${stem}_ptrs[i] = p ? p : (void *)missing; }
}
""")


def sources(soname: str, target: str, names: list) -> tuple:
    """The C loader, the assembly trampolines and the version script of the stand-in."""
    stem = soname.split(".so")[0]
    quoted = ", ".join('"' + n + '"' for n in names)
    c = C_TEMPLATE.substitute(stem=stem, n=len(names), quoted=quoted, soname=soname, target=target)
    asm = [".text"]
    for i, name in enumerate(names):
        asm += [".globl " + name, ".type " + name + ",@function", name + ":",
                "  jmp *" + stem + "_ptrs+" + str(8 * i) + "(%rip)"]
    asm.append('.section .note.GNU-stack,"",@progbits')
    version_map = soname + " {\n  global:\n" + "".join("    " + n + ";\n" for n in names) + "  local: *;\n};\n"
    return stem, c, "\n".join(asm) + "\n", version_map


def main() -> None:
    soname, target, symbols, out_dir = sys.argv[1:5]
    names = [n for n in Path(symbols).read_text().split() if n]
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem, c, asm, version_map = sources(soname, target, names)
    for suffix, text in ((".c", c), (".S", asm), (".map", version_map)):
        (out / (stem + suffix)).write_text(text)
    subprocess.run(["gcc", "-shared", "-fPIC", "-O2", "-o", str(out / soname), str(out / (stem + ".c")),
                    str(out / (stem + ".S")), "-Wl,-soname," + soname, "-Wl,--version-script," + str(out / (stem + ".map")),
                    "-ldl"], check=True)
    print(out / soname, len(names), "functions ->", target)


if __name__ == "__main__":
    main()
