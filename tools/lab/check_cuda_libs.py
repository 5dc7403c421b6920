"""Which CUDA libraries a framework's dlopen-by-name finds in this environment (no GPU needed).

TensorFlow loads its GPU libraries by name (libcusolver.so.11, ...) and registers no GPU when one
is missing ("Cannot dlopen some GPU libraries"). Run inside an image: `docker run IMAGE python
/path/check_cuda_libs.py`; exit 1 when any library is not found by name. Stdlib only.
"""
import ctypes
import sys

# What TensorFlow 2.21 opens (tsl/platform/default/dso_loader.cc) from tensorflow[and-cuda]'s wheels.
TF_CUDA12 = ["libcudart.so.12", "libcublas.so.12", "libcublasLt.so.12", "libcufft.so.11", "libcusolver.so.11",
             "libcusparse.so.12", "libcudnn.so.9", "libcurand.so.10", "libnvJitLink.so.12", "libnccl.so.2",
             "libcupti.so.12"]


def main(names):
    missing = []
    for name in names or TF_CUDA12:
        try:
            ctypes.CDLL(name)
            print("found   " + name)
        except OSError as exc:
            missing.append(name)
            print("MISSING " + name + ": " + str(exc).split(":")[-1].strip())
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
