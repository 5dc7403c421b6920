#!/usr/bin/env bash
# On the GPU host (run by the device tool, in the checkout's root): do the GPU code the reader finds
# (harness/environments/cuda_code.py) and the fit the judge gives (judgement/gpu_code.py) agree with
# cuobjdump and with what the GPU really runs?
#   1. a small kernel built by nvcc six ways (machine code for sm_80, sm_86, sm_90; PTX only for
#      compute_75 and compute_100; sm_80 machine code with its PTX), each run on this GPU twice (a
#      fresh JIT cache, then warm), with cuobjdump's listing of each;
#   2. the installed frameworks' own libraries (torch, cupy, jaxlib, the nvidia-* wheels): cuobjdump's
#      architectures against the reader's.
# Writes $OUT/cuda_code.json, $OUT/cuda_code.log and $OUT/kernels.tgz (the six binaries: test fixtures).
set -u
export NCCL_NVLS_ENABLE=0
W=/root/cuda-code
rm -rf "$W" && mkdir -p "$W"
exec > >(tee "$OUT/cuda_code.log") 2>&1
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
nvcc --version | tail -2
cp tests/data/cuda/kernel.cu "$W/kernel.cu"  # the kernel the fixtures were built from
declare -A FLAGS=(
  [sm80]="-gencode arch=compute_80,code=sm_80"
  [sm86]="-gencode arch=compute_86,code=sm_86"
  [sm90]="-gencode arch=compute_90,code=sm_90"
  [ptx75]="-gencode arch=compute_75,code=compute_75"
  [ptx100]="-gencode arch=compute_100,code=compute_100"
  [sm80ptx80]="-gencode arch=compute_80,code=[sm_80,compute_80]"
)
for name in "${!FLAGS[@]}"; do
  # shellcheck disable=SC2086
  nvcc ${FLAGS[$name]} -cudart shared -o "$W/kernel_$name" "$W/kernel.cu" || echo "nvcc failed: $name"
  cuobjdump --list-elf --list-ptx "$W/kernel_$name" > "$W/kernel_$name.cuobjdump" 2>&1
  for pass in cold warm; do
    [ "$pass" = cold ] && rm -rf "$W/jit-$name"
    start=$EPOCHREALTIME
    said=$(CUDA_CACHE_PATH="$W/jit-$name" "$W/kernel_$name" 2>&1); code=$?
    end=$EPOCHREALTIME
    printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$pass" "$code" "$(awk "BEGIN{print $end - $start}")" "$said" >> "$W/runs.tsv"
  done
done
cat "$W/runs.tsv"
(cd "$W" && tar czf "$OUT/kernels.tgz" kernel.cu kernel_* runs.tsv)
python3 - "$W" <<'EOF'
import glob, json, os, re, subprocess, sys, time
sys.path.insert(0, os.getcwd())
from harness.environments import cuda_code
from harness.judgement import gpu_code
from harness.model.gpu_code import BuildCode

work = sys.argv[1]
def listed(path):
    done = subprocess.run(["cuobjdump", "--list-elf", "--list-ptx", path], capture_output=True, text=True)
    sass, ptx = set(), set()
    for line in done.stdout.splitlines():
        m = re.search(r"\.sm_(\d+)[a-z]?\.(cubin|ptx)", line)
        if m:
            (sass if m.group(2) == "cubin" else ptx).add(int(m.group(1)))
    return sorted(sass), sorted(ptx), done.returncode
out = {"kernels": {}, "libraries": {}}
runs = {}
for line in open(os.path.join(work, "runs.tsv")):
    name, run, code, seconds, said = line.rstrip("\n").split("\t", 4)
    runs.setdefault(name, {})[run] = {"exit": int(code), "seconds": float(seconds), "said": said}
for path in sorted(glob.glob(os.path.join(work, "kernel_*"))):
    if "." in os.path.basename(path):
        continue
    name = os.path.basename(path)[len("kernel_"):]
    lib = cuda_code.read_library(__import__("pathlib").Path(path))
    fit = gpu_code.fit(BuildCode((lib,)), (9, 0), "an H100", f"kernel_{name}")
    sass, ptx, _ = listed(path)
    out["kernels"][name] = {"reader": [sorted(lib.sass), sorted(lib.ptx)], "cuobjdump": [sass, ptx],
                            "fit": {"runs": fit.runs, "how": fit.how, "text": fit.text}, "ran": runs.get(name)}
import site
libs = []
for root in site.getsitepackages():  # every shared library of the installed frameworks and their CUDA wheels
    for pattern in ("torch/lib/*.so*", "cupy/**/*.so", "cupy_backends/**/*.so", "jaxlib/**/*.so", "jax_plugins/**/*.so",
                    "nvidia/**/*.so*", "triton/**/*.so*"):
        libs += glob.glob(os.path.join(root, pattern), recursive=True)
for path in sorted(set(libs)):
    t0 = time.monotonic()
    lib = cuda_code.read_library(__import__("pathlib").Path(path))
    took = time.monotonic() - t0
    sass, ptx, code = listed(path)
    out["libraries"][path] = {"reader": [sorted(lib.sass), sorted(lib.ptx)], "cuobjdump": [sass, ptx],
                              "cuobjdump_exit": code, "read_s": round(took, 2), "bytes": os.path.getsize(path)}
agree_k = sum(v["reader"] == v["cuobjdump"] for v in out["kernels"].values())
agree_l = sum(v["reader"] == v["cuobjdump"] for v in out["libraries"].values())
predicted = sum((v["ran"] or {}).get("cold", {}).get("exit") == (0 if v["fit"]["runs"] else 1) for v in out["kernels"].values())
print(f"kernels: reader = cuobjdump in {agree_k} of {len(out['kernels'])}; fit predicted the run in {predicted}")
print(f"libraries: reader = cuobjdump in {agree_l} of {len(out['libraries'])}")
import struct
def nv_fatbin_only(path):
    """The reader on the .nv_fatbin section alone: what cuobjdump lists."""
    data = open(path, "rb").read()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize) for i in range(shnum)]
    strtab = sections[shstrndx]
    for name, _, _, _, offset, size in sections:
        label = data[strtab[4] + name:data.index(b"\0", strtab[4] + name)]
        if label == b".nv_fatbin":
            sass, ptx = cuda_code.architectures(data[offset:offset + size])
            return [sorted(sass), sorted(ptx)]
    return [[], []]
for path, v in sorted(out["libraries"].items()):
    if v["reader"] != v["cuobjdump"]:
        v["nv_fatbin_only"] = nv_fatbin_only(path)
        print("differs:", path, v["reader"], v["cuobjdump"], "section only:", v["nv_fatbin_only"],
              "= cuobjdump" if v["nv_fatbin_only"] == v["cuobjdump"] else "!= cuobjdump")
for name, v in sorted(out["kernels"].items()):
    print(name, v["reader"], v["cuobjdump"], v["fit"]["how"], (v["ran"] or {}).get("cold"), (v["ran"] or {}).get("warm"))
big = sorted(out["libraries"].items(), key=lambda kv: -kv[1]["bytes"])[:12]
for path, v in big:
    print(os.path.basename(path), v["bytes"] >> 20, "MiB", v["reader"] == v["cuobjdump"], v["reader"], v["read_s"], "s")
json.dump(out, open(os.path.join(os.environ["OUT"], "cuda_code.json"), "w"), indent=1, sort_keys=True)
EOF
