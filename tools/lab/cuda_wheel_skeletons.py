"""NVIDIA's CUDA wheels carried without their libraries, rebuilt on the GPU host from libraries already there.

The CUDA 11 libraries travel once (tf_old_sweep_gpu.sh's base: zstd, without cuDNN's convolution and RNN parts);
the virtualenv backend installs the cu11 wheels themselves (the registry's venv_cuda). So the wheels travel as
skeletons (metadata, headers, each library's name: a few MB) and are zipped again there around the carried
libraries, under their own names and versions. A library left out of the carry (cuDNN's cnn/adv, cusolverMg,
cufftw, nvblas) is left out of its wheel too, and said.

    strip WHEEL... OUT      here: OUT/<wheel> without nvidia/*/lib/*.so*, and OUT/<wheel>.libs naming them
    build SKELETONS LIBS WH there: each skeleton with its libraries from LIBS, as WH/<wheel>
"""
import os
import sys
import zipfile


def strip(wheels, out):
    os.makedirs(out, exist_ok=True)
    for wheel in wheels:
        name = os.path.basename(wheel)
        libs = []
        with zipfile.ZipFile(wheel) as src, zipfile.ZipFile(os.path.join(out, name), "w", zipfile.ZIP_DEFLATED) as dst:
            for info in src.infolist():
                if "/lib/" in info.filename and ".so" in os.path.basename(info.filename):
                    libs.append(info.filename)
                else:
                    dst.writestr(info, src.read(info))
        with open(os.path.join(out, name + ".libs"), "w") as listing:
            listing.write("\n".join(libs) + "\n")
        print(f"{name}: {len(libs)} libraries left to the host")


def build(skeletons, libs, wh):
    for name in sorted(os.listdir(skeletons)):
        if not name.endswith(".whl"):
            continue
        with open(os.path.join(skeletons, name + ".libs")) as listing:
            wanted = [line.strip() for line in listing if line.strip()]
        target = os.path.join(wh, name)
        missing = []
        with zipfile.ZipFile(os.path.join(skeletons, name)) as src, \
                zipfile.ZipFile(target + ".part", "w", zipfile.ZIP_STORED) as dst:
            for info in src.infolist():
                dst.writestr(info, src.read(info))
            for member in wanted:
                path = os.path.join(libs, os.path.basename(member))
                if os.path.exists(path):
                    dst.write(path, member)
                else:
                    missing.append(os.path.basename(member))
        os.rename(target + ".part", target)
        left_out = ", left out: " + " ".join(missing) if missing else ""
        print(f"{name}: {len(wanted) - len(missing)} libraries{left_out}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["strip"]:
        strip(sys.argv[2:-1], sys.argv[-1])
    elif sys.argv[1:2] == ["build"] and len(sys.argv) == 5:
        build(*sys.argv[2:])
    else:
        sys.exit(__doc__)
