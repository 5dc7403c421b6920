"""Bug reports as they come, on a host with two GPUs and no Docker: notebooks, a pasted issue, spawned
workers, one process on two GPUs, a torchrun job failing at its arguments; each bare and under
`harness repro` (the process backend, the host's own Python), with each GPU's peak from NVML outside
both. Writes OUT/table.md, OUT/repro.md (every run's block) and OUT/runs.tgz.

Usage: python3 tools/lab/bug_reports_gpu.py OUT [SITE]   (SITE: the harness's own packages, never on
the cells' PYTHONPATH; the harness runs through runpy with SITE on its own sys.path)
"""
from __future__ import annotations

import json
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SITE = sys.argv[2] if len(sys.argv) > 2 else "/root/hs"
sys.path[:0] = [SITE, str(REPO / "tests" / "fidelity")]
import compare  # noqa: E402  (GpuPeaks, marked lines)

PY = sys.executable
HARNESS = [PY, "-c", f"import runpy, sys; sys.path[:0] = [{SITE!r}, {str(REPO)!r}]; "
           "runpy.run_module('harness', run_name='__main__', alter_sys=True)"]
IPYTHON = next((Path.home() / ".cache" / "gpu-cleanup-matrix" / "ipython").glob("py*"), None)
F = REPO / "tests" / "fidelity"
LAUNCH = ["torchrun", "--standalone", "--nproc_per_node=2"]
DDP_GLOO = str(REPO / "tests" / "repro" / "launch" / "ddp_gloo.py")
NB_OUT, NB_ERROR = str(F / "notebooks" / "gpu_out_keeps_module.ipynb"), str(F / "notebooks" / "gpu_error_keeps_tensor.ipynb")
ROWS = [  # name, bare argv, repro argv (after `repro`)
    ("notebook: a bare expression keeps the module", [PY, str(F / "notebook_bare.py"), NB_OUT, str(IPYTHON)], [NB_OUT]),
    ("notebook: a failing cell's traceback keeps a tensor", [PY, str(F / "notebook_bare.py"), NB_ERROR, str(IPYTHON)],
     [NB_ERROR]),
    ("pasted torch issue (collect_env: 2.11.0)", [PY, "ISSUE_BLOCK"], [str(F / "gpu" / "issue_torch_del.md")]),
    ("DDP with mp.spawn (NCCL, 2 ranks)", [PY, str(F / "multigpu" / "ddp_spawn.py")], [str(F / "multigpu" / "ddp_spawn.py")]),
    ("TorchScript model moved to cuda:1", [PY, str(F / "multigpu" / "torchscript_cuda1.py")],
     [str(F / "multigpu" / "torchscript_cuda1.py")]),
    ("CUDA used before set_device(1)", [PY, str(F / "multigpu" / "cuda_before_set_device.py")],
     [str(F / "multigpu" / "cuda_before_set_device.py")]),
    ("torchrun, ranks fail at argument parsing", [*LAUNCH, DDP_GLOO, "--lr", "1e-3"], ["--", *LAUNCH, DDP_GLOO, "--lr", "1e-3"]),
]
# ROWS=holders: what holds the memory where it is held, on one GPU (issue: a loop's leak named at `end`, a notebook
# that keeps a tensor), each bare and under repro
HOLDER_ROWS = [
    ("loop: a sum keeps each iteration's graph, outputs kept (no cleanup line)",
     [PY, str(F / "gpu" / "loop_sum_keeps_graph.py")], [str(F / "gpu" / "loop_sum_keeps_graph.py")]),
    ROWS[1],
]
KEPT = ("Status:", "Answer:", "- ", "Cell ", "Cells ", "Processes:", "A process", "After exit")


def marked(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith(("FIDELITY", "NB "))]


def bare(argv: list[str]) -> tuple[int | None, str, float, list[int]]:
    with compare.GpuPeaks() as peaks, tempfile.TemporaryFile() as output:
        began = time.monotonic()
        proc = subprocess.Popen(argv, stdout=output, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=REPO)
        try:
            code: int | None = proc.wait(300)
        except subprocess.TimeoutExpired:
            proc.kill()
            code = None
        took = time.monotonic() - began
        output.seek(0)
        return code, output.read().decode("utf-8", "replace"), took, list(peaks.peaks)


def repro(args: list[str], results: Path) -> tuple[dict, str, str, list[int], str]:
    before = set(results.iterdir()) if results.is_dir() else set()
    with compare.GpuPeaks() as peaks:
        done = subprocess.run([*HARNESS, "repro", "--interpreter", PY, "--results", str(results), "--timeout", "300", *args],
                              capture_output=True, text=True, cwd=REPO, stdin=subprocess.DEVNULL)
    run_dir = next(p for p in sorted(set(results.iterdir()) - before) if p.name != "reports")
    records = [json.loads(p.read_text()) for p in run_dir.glob("*/*.json")]
    record = next((r for r in records if r["env"]["name"].startswith("host-")), records[0] if records else {})
    logs = sorted((run_dir / "logs").glob("*/*.log"))
    md = (run_dir / "repro.md").read_text() if (run_dir / "repro.md").is_file() else done.stdout
    return record, "\n".join(p.read_text(errors="replace") for p in logs), md, list(peaks.peaks), done.stderr


def main(out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    results = Path(tempfile.mkdtemp()) / "runs"
    rows = ["| input | bare: exit, output, peak per GPU | under repro: exit, output, peak per GPU | what repro says |",
            "|---|---|---|---|"]
    blocks = []
    import os

    for name, bare_argv, repro_args in HOLDER_ROWS if os.environ.get("ROWS") == "holders" else ROWS:
        record, log, md, peaks, err = repro(repro_args, results)
        if bare_argv[-1] == "ISSUE_BLOCK":  # the block repro ran, bare
            bare_argv = [PY, str(next((results / "reports").glob("*.py")))]
        code, output, took, bare_peaks = bare(bare_argv)
        same = "identical" if marked(output) == marked(log) else "DIFFERS"
        says = [line.strip() for line in md.splitlines() if line.strip().startswith(KEPT)][:8]
        apart = " / ".join(f"{(r - b) / b:+.2%}" for b, r in zip(bare_peaks, peaks, strict=False) if b)
        rows.append(f"| {name} | {code}, {len(marked(output))} lines, {' / '.join(f'{p} MiB' for p in bare_peaks)} | "
                    f"{record.get('exit_code')}, {same}, {' / '.join(f'{p} MiB' for p in peaks)} ({apart} of bare) | "
                    + "<br>".join(s.replace("|", "\\|") for s in says) + " |")
        blocks.append(f"## {name}\n\nbare ({took:.1f} s):\n```\n" + "\n".join(marked(output)) + "\n```\n\n" + md
                      + ("\n```\n" + err[-1500:] + "\n```\n" if not md.strip() else ""))
        print(rows[-1], flush=True)
    (out / "table.md").write_text("\n".join(rows) + "\n")
    (out / "repro.md").write_text("\n".join(blocks))
    with tarfile.open(out / "runs.tgz", "w:gz") as tar:
        tar.add(results, arcname="runs")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
