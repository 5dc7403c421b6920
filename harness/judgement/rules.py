"""The version of the judge's rules, and what each version changed.

Every judged cell, matrix.json and atlas row names the version that judged it; a re-render with
today's rules gives today's answer (answer.py). Bump it with any change to what the judge decides.

2: runtime growth, pool, other processes told apart (attribution.py); 3: import floor, host words;
4: a cell's answer (answer.py) splits what is left into live / pool / runtime, and a cell whose steps had no signal is
grey, never "back at exit"; 5: a step below the runtime floor (before the first touch, or after the runtime gave
some back) has nothing left, never a negative amount, and the runtime keeps what it holds then; 6: a loop grows
when the framework's own in-use count grows where NVML is blind (a pool mapped before the loop); 7: a claim of
what can happen ("does not always") is "not reproduced" by a run that does not show it, never "contradicted";
8: a launcher's ranks are judged each alone, on its own process and GPU (ranks.py); below the runtime floor what
the framework still holds is still left (the runtime gave back some of its own: NCCL's at destroy_process_group);
9: a scenario about GPU memory (META gpu_only) measured without a GPU answers n/a with why (gpu_only.py); a
failure for want of a GPU on a host without one (CuPy's "driver version is insufficient") is unsupported, with why;
10: a loop whose slope is inside its noise but would add up to a judged change is "unclear", never "flat" (loops.py)
11: from five readings on, a loop's noise is its readings' own scatter down to one reading's resolution, not the
meter's noise floor: a steady 0.5 MiB a round over 100 rounds grows ("small" under what the meter judges), not flat
12: a loop measured twice "ran twice", never grows: two readings make no trend (loops.py)
13: a script's GPU-only line (torch.cuda.empty_cache()) measured without a GPU is n/a with why (gpu_only.py)
14: growth within the meter's noise of its smallest judged change is no signal, "borderline" with the figures; what
is left within it of the release line where no framework count decides is a "borderline" partial: never one word
on one run and another on the next
15: a failure whose error is CUDA's "no code for this GPU" is unsupported (the build's limit on this GPU), an old
agent's give-up on a live child a harness-error (failures.py): neither is the release's answer; a release that
fails where its neighbour runs is a turn (turns.py)
16: an import that fails inside the framework is unsupported, with the cause (failures.py): the technique never ran
17: a cell that never ran (its environment was not built) is not "not shown without a GPU" (gpu_only.py)
18: a spawned child that died in the scenario's warm-up (its traceback in the stderr) is unsupported (failures.py)
19: a release older than what its scenario uses (META since) is unsupported (since.py); a library that failed
    in the warm-up is said beside the answer (failures.measured_without); cuDNN's EXECUTION_FAILED as cuBLAS's
20: an API a release lacks (torch.cuda.set_per_process_memory_fraction before 1.8, META since) says so, not
    the AttributeError; a cell that stopped is not said to have measured without it (since.py)
21: a claim that tells the pool from live tensors ("stays with the caching allocator") is untestable on a
    step "held" without the framework's own count, never contradicted (claims.py)
22: a CuPy kernel compiled for an older GPU than the cell's (CuPy 9-10 on Hopper) is unsupported with the switch
    that lifts it, CUPY_COMPILE_WITH_PTX=1 (failures.cupy_compiled_for_older_gpu); a cell that died by a signal
    with CUDA libraries linked under older sonames is that environment's failure, a harness-error
    (failures.aliased_crash), and a cell that ran so says it beside its answer (failures.aliased_libraries); a
    step "held" without the framework's own count turns from none on its verdict, only on what came back (turns.py);
    a build that cannot load CUDA's libraries on a host without them (CuPy 8) needs them and a GPU (gpu_use.py)
23: a script's host peak is at least the kernel's high-water mark of its process (VmHWM, read at each checkpoint)
    where it rose after the start: memory taken and given back between two timeline samples is still its peak;
    TensorFlow's "Blas GEMM launch failed" with cuBLAS's EXECUTION_FAILED in its stderr, on a GPU newer than its CUDA
    (1.14-2.2 name the major alone: "10"), is the build's limit (failures.no_code_for_gpu)
24: a notebook's framework import (`cell 1, line 2: import torch`) is the floor, as in a script (verdicts.IMPORT_LABEL);
    host memory left at a script's `end` says what of it was the C allocator's free heap (malloc_trim(0) gave it
    back once the script was done: leftover.at_end, answer.Amounts.heap)
25: where no framework count says what is live (a CPU run's host memory, TensorFlow before 2.5), the arrays the
    holder search saw alive at the step are live, "held by live objects", and only the rest is "held by the process"
    (named_live.py)
26: host memory left at a script's `end` also says what of it was reference cycles Python's garbage collector had
    not yet freed (a forked copy freed them: agent/garbage.py, leftover.at_end, answer.Amounts.garbage)
27: a claim may compare a step with an earlier step of its own scenario (claims.toml's other_label): "deleting the
    GradientTape releases ..." is decided by what `del tape` gave back on TF's own count, not by a step verdict that
    counts the tensors the script still holds; "significantly reduces" is a fifth or more (factor 1.25), not 8%
28: a build with no machine code for the GPU whose kernels the driver compiled from PTX (TensorFlow's own words in
    the cell's log) says so beside its answer (failures.ptx_jit); a framework with no CPU build on a host without a
    GPU (CuPy) is not made there, and its cells are unsupported with why (gpu_use.NEEDS_GPU)
29: each step of a scenario about GPU memory measured without a GPU is n/a with why, its readings kept and no verdict
    written on them (gpu_only.steps_not_shown); a borderline answer (a reading within the meter's noise of a line
    the judge draws) is its own answer, "borderline", in its own colour, neither part back nor no signal, and never
    a turn's side (answer.COLOUR, turns.parts)
30: a loop whose growth stands clear of its noise is a leak per iteration however little it adds up to over the
    iterations run ("small"): part back (amber) in the cell's answer and the growing side of a turn, as an issue's
    replay already called it reproducing (loops.LEAKING); TF 2.11-2.13's predict() in a loop, retracing a
    tf.function per signature, Keras models built in a loop without clear_session(); a loop NVML cannot see (the
    pool mapped at the first touch, before it) with no framework count either (TensorFlow before 2.5) is "not
    seen", never "flat" (loops.UNSEEN); a first touch of torch or CuPy (their pools grow as asked) larger than what
    followed is the CUDA runtime's, not a pool mapped whole, where no framework count says so (floors._lazy_pools:
    torch 1.0.1's 900 MiB context on Hopper was "held"); what only cycles keep of the framework's count is held to
    that count's precision, not 5% of a pool mapped whole (leftover.at_end: JAX preallocating 104.5 GiB)
"""

RULES_VERSION = 30


def judged_by(version: int | str = RULES_VERSION) -> str:
    """How every output names the rules its answers came from, with what that means to a reader."""
    return (f"judged by rules version {version} (how readings become answers; a run read again is judged by "
            "today's rules)")
