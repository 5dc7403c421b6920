"""Who failed, when a cell's scenario did not finish: the release, this GPU's limit on its build, or the harness.

The agent classifies a failure as it happens; the judge classifies it again from the record, so a record
written by an older agent is read by today's rules (as its verdicts are). Only a failure of the release itself
is an answer a turn may compare (judgement/turns.py): "torch 1.0.1 fails on an H100" because its kernels have
no code for the GPU is this GPU's limit (unsupported), not the release's behaviour.
"""
from __future__ import annotations

import re

from harness import frameworks
from harness.common.distributions import distribution
from harness.common.fetched_libraries import aliases_said
from harness.model.record import CellRecord, ErrorInfo, Status

# CUDA's words for a kernel with no machine code for the GPU and no PTX the driver could compile for it (the
# agent's NO_GPU_CODE, which classifies them as the cell runs; agent code imports nothing of the host's)
NO_GPU_CODE = re.compile(r"no kernel image is available|invalid device function|CUBLAS_STATUS_ARCH_MISMATCH")
# a CUDA library's kernel that could not run (cuBLAS's or cuDNN's *_STATUS_EXECUTION_FAILED): the build's limit where the
# cell's CUDA predates the GPU, whose first CUDA with machine code for it is this (NVIDIA's toolkit release notes)
LIBRARY_FAILED = re.compile(r"the GPU program failed to execute|CUBLAS_STATUS_EXECUTION_FAILED|CUDNN_STATUS_EXECUTION_FAILED")
FIRST_CUDA_OF_CAPABILITY = {(7, 0): (9, 0), (7, 5): (10, 0), (8, 0): (11, 0), (8, 6): (11, 1), (8, 7): (11, 4),
                            (8, 9): (11, 8), (9, 0): (11, 8), (10, 0): (12, 8), (12, 0): (12, 8)}
# records before the GPU's compute capability was kept name it only
FIRST_CUDA = (("H100", (11, 8)), ("H200", (11, 8)), ("H800", (11, 8)), ("GH200", (11, 8)), ("B100", (12, 8)),
              ("B200", (12, 8)), ("GB200", (12, 8)), ("A100", (11, 0)), ("A800", (11, 0)), ("A10", (11, 1)),
              ("L40", (11, 8)), ("L4", (11, 8)))
# an agent before 2026-11-27 gave up on a spawned child after 300 s while the child still ran (its first CUDA
# start JIT-compiling torch 1.0's PTX for up to 14 minutes): the harness's limit, not the release's answer
GAVE_UP_ON_CHILD = re.compile(r"the child never reported its allocation \(exit code None\)")


# a traceback's frame: its file and the line of source it ran
FRAME = re.compile(r'File "([^"]+)", line \d+, in [^\n]+\n\s+([^\n]+)')
LIBRARY_CODE = re.compile(r"/(site|dist)-packages/|/lib/python\d|/harness/agent/")


def _message(record: CellRecord) -> str:
    error: ErrorInfo = record.get("error") or {"type": ""}
    return f"{error.get('message') or ''} {error.get('type') or ''}"


def _older_than_gpu(record: CellRecord) -> str | None:
    """'CUDA 9.0 predates the H100 (its code came with CUDA 11.8)' where the cell's CUDA is older than its GPU (a
    build that names its major alone, TensorFlow 1.14-2.2's "10", where that major is)."""
    cuda = str((record.get("facts") or {}).get("cuda") or "")
    facts = (record.get("host") or {}).get("gpu") or {}
    gpu = str(facts.get("name") or "")
    found = re.match(r"(\d+)(?:\.(\d+))?", cuda)
    capability = re.fullmatch(r"(\d+)\.(\d+)", str(facts.get("compute_capability")))
    first = (FIRST_CUDA_OF_CAPABILITY.get((int(capability.group(1)), int(capability.group(2)))) if capability
             else next((version for name, version in FIRST_CUDA if re.search(rf"\b{name}\b", gpu)), None))
    known = tuple(int(part) for part in found.groups() if part is not None) if found else ()
    if not known or first is None or known >= first[:len(known)]:  # a major alone is compared with the major
        return None
    named, cuda_said = gpu.replace("NVIDIA ", ""), ".".join(map(str, known))
    return f"CUDA {cuda_said} predates the {named} (its code came with CUDA {first[0]}.{first[1]})"


def no_code_for_gpu(record: CellRecord) -> str | None:
    """Why a failed cell is this GPU's limit on the build (a kernel it has no code for), or None."""
    if record.get("status") != Status.ERROR.value:
        return None
    message = _message(record)
    if found := NO_GPU_CODE.search(message):
        return (f"a kernel of this build has no code this GPU runs (\"{found.group(0)}\"): the build's limit on "
                "this GPU, not an answer of the release")
    # TensorFlow says "Blas GEMM launch failed" and logs cuBLAS's status to stderr
    if (failed := LIBRARY_FAILED.search(f"{message} {record.get('stderr_tail') or ''}")) and (
            older := _older_than_gpu(record)):
        return (f"a CUDA library's kernel failed to execute (\"{failed.group(0)}\"): {older}, the build's limit "
                "on this GPU, not an answer of the release")
    return None


def cupy_compiled_for_older_gpu(record: CellRecord) -> str | None:
    """Why a CuPy cell whose kernel had no code for the GPU is the build's limit, and the switch that lifts it:
    CuPy 9-10 compile their kernels with NVRTC to machine code for the newest architecture their table of NVRTC
    releases names (sm_86 in 9.6, sm_87 in 10.6), never Hopper's; CUPY_COMPILE_WITH_PTX=1 has them emit PTX the
    driver compiles for the GPU (9.6.0 and 10.6.0 then answer on an H100). None for any other cell."""
    frameworks = (record.get("facts") or {}).get("frameworks") or {}
    if "cupy" not in frameworks or record.get("status") not in (Status.ERROR.value, Status.UNSUPPORTED.value):
        return None
    if not NO_GPU_CODE.search(_message(record)) or "CUPY_COMPILE_WITH_PTX" in (record.get("setenv") or {}):
        return None
    gpu = str(((record.get("host") or {}).get("gpu") or {}).get("name") or "this GPU").replace("NVIDIA ", "")
    return (f"CuPy {frameworks['cupy']} compiled its kernel for an older GPU than the {gpu} (--setenv "
            "CUPY_COMPILE_WITH_PTX=1 runs it: the driver compiles its PTX): the newest GPU its NVRTC table names, "
            "the build's limit on this GPU, not an answer of the release")


# the folder where a virtualenv links the older sonames a release loads to its CUDA wheels' newer ones (venv_cuda.ALIASES)
ALIASES_FOLDER = re.compile(r"/cuda-aliases(:|$)")
SIGNALLED = re.compile(r"killed by signal \d+|the child exited with -\d+")


def aliased_libraries(record: CellRecord) -> str | None:
    """How a cell ran that its answer depends on: some CUDA libraries were newer ones linked under the older
    sonames the release loads (TensorFlow 2.4's libcusolver.so.10 as 11.8's .so.11), or None."""
    env = record.get("env") or {}
    if not ALIASES_FOLDER.search(str(env.get("library_path") or "")):
        return None
    named = ", ".join(aliases_said(env.get("cuda_aliases") or []))
    return ("ran with newer CUDA libraries linked under the older names it loads"
            + (f" ({named})" if named else " (its virtualenv's cuda-aliases folder)"))


def aliased_crash(record: CellRecord) -> str | None:
    """Why a cell that died by a signal in an environment whose CUDA libraries were linked under older names is
    that environment's failure, not the release's (TensorFlow 2.3.4 with CUDA 11.8's runtime as 10.1's: "stack
    smashing detected" in every graph-mode cell), or None."""
    crashed = record.get("status") == Status.CRASHED.value or (
        record.get("status") == Status.ERROR.value and SIGNALLED.search(_message(record)))
    if not crashed or not (how := aliased_libraries(record)):
        return None
    return f"the process died by a signal after it {how}: that environment's failure, not an answer of the release"


def harness_gave_up(record: CellRecord) -> str | None:
    """Why a failed cell is the harness's own failure, or None."""
    if record.get("status") != Status.ERROR.value or not GAVE_UP_ON_CHILD.search(_message(record)):
        return None
    return ("the agent stopped waiting for a spawned child that was still running (an agent before 2026-11-27; "
            "today's waits while the child lives): the harness's limit, not an answer of the release")


def import_failed(record: CellRecord) -> str | None:
    """Why a failed cell never reached its technique: the scenario's (or script's) own last line that ran was
    an import, which failed inside the framework (jax 0.4.35 beside a namespace nvidia.cuda_nvcc: "TypeError:
    argument should be a str ...", jax-ml/jax#24684). Every technique fails there alike: the environment's
    answer, not the technique's. None otherwise."""
    error: ErrorInfo = record.get("error") or {"type": ""}
    if record.get("status") != Status.ERROR.value:
        return None
    own = [code for path, code in FRAME.findall(str(error.get("traceback") or "")) if not LIBRARY_CODE.search(path)]
    if not own or not re.match(r"(import|from)\s+\S+", own[-1].strip()):
        return None
    first = str(error.get("message") or error.get("type")).splitlines()[0][:160]
    return (f"`{own[-1].strip()}` failed in this environment ({error.get('type')}: {first}): the technique never "
            "ran, not an answer of the release")


NO_MODULE = re.compile(r"No module named '?([\w.]+)'?")


def missing_module(record: CellRecord) -> str | None:
    """The package a failed cell's script imports and its environment lacks, in words with the fix ("the script
    imports psutil, which this environment lacks: --pip psutil"); None where the failure is another. A
    framework's own module missing (tensorflow.contrib on 2.x) is the release's answer, not this."""
    error: ErrorInfo = record.get("error") or {"type": ""}
    # the agent calls a module it cannot import unsupported (an API the release lacks)
    failed = record.get("status") in (Status.ERROR.value, Status.UNSUPPORTED.value)
    if not failed or error.get("type") not in ("ModuleNotFoundError", "ImportError"):
        return None
    found = NO_MODULE.search(str(error.get("message") or ""))
    top = found.group(1).split(".")[0] if found else ""
    if not top or any(top == f.name or top in f.reported_with for f in frameworks.all_frameworks()):
        return None
    return f"the script imports {top}, which this environment lacks: --pip {distribution(top)} adds it to every environment"


CHILD_EXITED = re.compile(r"the child exited with -?\d+ before it reported its allocation")
# the scenarios' own warm-up (scenarios/*/_*kit.py's init: the CUDA context, a first matrix product)
KIT_INIT = re.compile(r'File "[^"]*/_\w*kit\.py", line \d+, in init\b')


def child_warmup_failed(record: CellRecord) -> str | None:
    """Why a failed cell never reached its technique: its spawned child (torch/child_process) died in the
    scenario's warm-up, before it allocated anything (torch 1.4.0's CUDA 10.1 cuBLAS on an H200: the warm-up's
    matrix product fails as it does in every other cell of that build). The child's traceback is in the
    record's stderr; the parent never imported the framework, so nothing else says why. None otherwise."""
    if record.get("status") != Status.ERROR.value or not CHILD_EXITED.search(_message(record)):
        return None
    tail = str(record.get("stderr_tail") or "")
    child = tail[tail.rfind("Traceback (most recent call last):"):] if "Traceback" in tail else ""
    if not KIT_INIT.search(child):
        return None
    lines = [line.strip() for line in child.strip().splitlines()]
    cause = next((line for line in reversed(lines) if re.match(r"\w+(Error|Exception)\b", line)), "")
    return (f"the spawned child failed in the scenario's warm-up, before the technique ran ({cause[:160]}): "
            "not an answer of the release")


def measured_without(record: CellRecord) -> list[str]:
    """What a cell measured without, because it failed on this GPU in the scenario's warm-up (a checkpoint's
    ``note``: torch 1.4.0's CUDA 10.1 cuBLAS on an H200), said beside its answer: that answer holds for this
    build on this GPU, whose steps that needed the library failed with their own cause."""
    said = []
    for cp in record.get("checkpoints") or []:
        note = cp.get("note") or {}
        if note.get("without"):
            cause = str(note.get("cause") or "")
            found = LIBRARY_FAILED.search(cause) or NO_GPU_CODE.search(cause)
            why = [f'"{found.group(0)}"' if found else cause[:120], _older_than_gpu(record) or ""]
            said.append(f"measured without {note['without']}, which failed on this GPU in the warm-up "
                        f"({'; '.join(w for w in why if w)})")
    return said


def caveats(record: CellRecord) -> list[str]:
    """How a cell ran that its answer depends on, said beside it: a library that failed in the warm-up
    (measured_without), CUDA libraries linked under the older names the release loads (aliased_libraries), kernels
    JIT-compiled from PTX (ptx_jit)."""
    said = measured_without(record)
    return [*said, *(s for s in (aliased_libraries(record), ptx_jit(record)) if s)]


PTX_JIT = re.compile(r"not built with CUDA kernel binaries compatible with compute capability (\d+\.\d+)\. CUDA kernels "
                     r"will be jit-compiled from PTX")


def ptx_jit(record: CellRecord) -> str | None:
    """A build with no machine code for the GPU that ran by the driver compiling its PTX (TensorFlow says so in its
    log): the first start pays the compile (minutes), the JIT cache keeps it; or None."""
    found = PTX_JIT.search(record.get("stderr_tail") or "")
    if not found:
        return None
    return f"ran by PTX JIT (no machine code for compute capability {found.group(1)} in this build: a first start " \
           "compiles its kernels, the JIT cache keeps them)"
