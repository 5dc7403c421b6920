"""A bug report's script sees every GPU it is given, as bare; readings cover those GPUs, summed and
per GPU; a failed cell's status line names the exception. No GPU needed: planted NVML readings."""
from __future__ import annotations

from pathlib import Path

from harness.judgement.answer import error_line
from harness.judgement.cell import judge_cell
from harness.measurement.backends.base import CellSpec
from harness.measurement.meters import Meters
from harness.measurement.nvml import GpuFacts, Nvml
from harness.measurement.scenario import Scenario
from harness.running.slots import script_gpus, script_slots

# records of matrix/reference/h200x2-580.159.04-launchers/runs
LAUNCHERS = Path(__file__).resolve().parents[1] / "data" / "records" / "launchers"

MiB = 2**20


class PlantedNvml(Nvml):
    """NVML with fixed readings per GPU: device bytes, and bytes per PID."""

    def __init__(self, device: dict[int, int], per_pid: dict[int, dict[int, int]]) -> None:
        super().__init__(available=True, gpus=[GpuFacts(index=i, name="GPU", uuid=f"GPU-{i}", total_bytes=80 * 2**30,
                                                        mig_mode=False) for i in device])
        self._device, self._pids = device, per_pid

    def device_used(self, index: int) -> int | None:
        return self._device[index]

    def device_reserved(self, index: int) -> int | None:
        return 0

    def running(self, index: int) -> list[tuple[int, int | None]] | None:
        return list(self._pids[index].items())

    def processes(self, index: int) -> dict[int, int] | None:
        return dict(self._pids[index])

    def process_used(self, index: int, pids: object) -> int | None:
        return sum(v for pid, v in self._pids[index].items() if pid in pids)  # type: ignore[operator]


def _spec(mode: str = "repro", **gpus: object) -> CellSpec:
    scenario = Scenario(name="repro/x", path=Path("x.py"), mode=mode)
    return CellSpec(run_id="r", cell_id="c", env_name="e", scenario=scenario, nonce="n", params={}, env_vars={},
                    ack_dir=Path("."), log_path=Path("x.log"), timeout=1.0, gpu_index=0, **gpus)  # type: ignore[arg-type]


def test_a_script_given_every_gpu_is_pinned_to_none_and_a_matrix_cell_to_its_own() -> None:
    assert _spec(gpu_indices=(0, 1), all_gpus=True).gpu_pin() == {}
    assert _spec(gpu_indices=(1, 2)).gpu_pin() == {"CUDA_DEVICE_ORDER": "PCI_BUS_ID", "CUDA_VISIBLE_DEVICES": "1,2"}
    assert _spec(mode="scenario").gpu_pin() == {"CUDA_DEVICE_ORDER": "PCI_BUS_ID", "CUDA_VISIBLE_DEVICES": "0"}
    user = _spec(gpu_indices=(1, 2))
    user.env_vars["CUDA_VISIBLE_DEVICES"] = "1"
    assert user.gpu_pin() == {}  # the user's own choice stands


def test_a_repro_run_on_two_gpus_holds_both_one_cell_at_a_time() -> None:
    nvml = PlantedNvml({0: 0, 1: 0}, {0: {}, 1: {}})
    repro = [Scenario(name="repro/x", path=Path("x.py"), mode="repro")]
    assert script_slots([0, 1], repro) == ([0], (0, 1))
    assert script_gpus((0, 1), nvml) == {"gpu_indices": (0, 1), "all_gpus": True}
    matrix = [Scenario(name="torch/a", path=Path("a.py"))]
    assert script_slots([0, 1], matrix) == ([0, 1], (0, 1))  # matrix scenarios keep one GPU per cell
    assert script_gpus((0,), nvml) == {}


def test_readings_cover_every_gpu_the_script_sees_summed_and_per_gpu() -> None:
    nvml = PlantedNvml({0: 600 * MiB, 1: 1600 * MiB}, {0: {7: 500 * MiB, 99: 100 * MiB}, 1: {7: 1500 * MiB}})
    meters = Meters(nvml, 0, (0, 1))
    reading = meters.read({7})
    assert (reading["nvml_device"], reading["nvml_process"]) == (2200 * MiB, 2000 * MiB)
    assert meters.per_gpu({7}) == {"0": {"nvml_device": 600 * MiB, "nvml_process": 500 * MiB},
                                   "1": {"nvml_device": 1600 * MiB, "nvml_process": 1500 * MiB}}
    single = Meters(nvml, 1)
    assert single.read({7})["nvml_process"] == 1500 * MiB and single.per_gpu({7}) is None


def test_the_status_line_names_the_exception_not_the_tracebacks_last_hint() -> None:
    torch_error = {"type": "RuntimeError", "message": "CUDA error: invalid device ordinal\nCUDA kernel errors might be "
                   "asynchronously reported at some other API call.\nCompile with `TORCH_USE_CUDA_DSA` to enable "
                   "device-side assertions.\n", "traceback": "Traceback ...\nCompile with `TORCH_USE_CUDA_DSA` to enable "
                   "device-side assertions.\n"}
    assert error_line(torch_error) == "RuntimeError: CUDA error: invalid device ordinal"
    assert error_line({"type": "SystemExit", "message": "", "traceback": "x\nSystemExit: 3"}) == "SystemExit: 3"
    assert error_line(None) == ""


def _launched(per_checkpoint: list[list[tuple[int, int, int]]]) -> dict:
    """A launcher's record: checkpoints of ranks 0 and 1 (PIDs 11, 12) with (pid, gpu, MiB) readings."""
    checkpoints = []
    for n, held in enumerate(per_checkpoint):
        rank = n % 2
        checkpoints.append({
            "label": f"rank {rank}: step {n}", "rank": rank, "pid": 11 + rank, "readings": {},
            "gpu_processes": [{"pid": pid, "gpu": gpu, "bytes": mib * MiB, "in_cell": True, "command": "python rank.py"}
                              for pid, gpu, mib in held]})
    return {"scenario": {"name": "repro/t", "launcher": True}, "script_pid": 10, "checkpoints": checkpoints}


def test_a_rank_holding_memory_on_another_ranks_gpu_is_named_with_the_fix() -> None:
    from harness.judgement import attribution, multigpu

    record = _launched([[(11, 0, 900)], [(11, 0, 1500), (12, 0, 520), (12, 1, 1400)], [(11, 0, 600), (12, 1, 700)]])
    (stray,) = multigpu.stray_memory(record)
    assert (stray.pid, stray.rank, stray.own_gpu, stray.other_gpu, stray.bytes) == (12, 1, 1, 0, 520 * MiB)
    assert "Rank 1 (PID 12) holds 520.00 MiB on GPU 0 besides its own GPU 1" in stray.sentence()
    assert "torch.cuda.set_device(local_rank)" in stray.sentence()
    assert attribution.judged_pid(record) is None  # the launcher and its ranks are judged together
    assert attribution.named(record["checkpoints"][1]["gpu_processes"], attribution.ranks_by_pid(record)).startswith(
        "PID 11 (rank 0) on GPU 0 `python rank.py` (1.46 GiB), PID 12 (rank 1) on GPU 0")


def test_one_process_on_two_gpus_is_no_finding() -> None:
    from harness.judgement import multigpu

    data_parallel = _launched([[(11, 0, 1500), (11, 1, 1400)]])  # DataParallel: one process, both GPUs, by design
    assert multigpu.stray_memory(data_parallel) == []
    small = _launched([[(11, 0, 1500), (12, 0, 20), (12, 1, 1400)]])  # 20 MiB: below what a context takes
    assert multigpu.stray_memory(small) == []


def test_a_launched_jobs_peak_row_names_what_it_sums() -> None:
    from harness.reporting import repro_md

    peak = {"after": "rank 0: start", "before": "rank 1: end", "t_s": 1.0, "readings": {"nvml_process": 2**30}}
    assert repro_md._peak_row(peak, True, True, launched=True)[1] == "1.00 GiB (the job's processes)"
    assert repro_md._peak_row(peak, True, True)[1] == "1.00 GiB (with its other processes)"


def test_each_rank_is_judged_on_its_own_process_and_gpu() -> None:
    """The committed torchrun record (2x H200): rank 1 made a 518 MiB context on GPU 0 before its own
    work on GPU 1. Judged on the job's sum, its empty_cache step read '518 MiB left ... the runtime's
    own'; judged alone it is released (the runtime keeps its 608 MiB on GPU 1), the stray context is
    the multi-GPU finding, and a rank's start and imports are its floor, not steps."""
    from harness.judgement import multigpu, verdicts
    from harness.store import results

    run = LAUNCHERS / "20261126T054221Z-eef7b7"
    (record,), _ = results.read_records(run)
    steps = {s["label"]: s for s in verdicts.judge(record)["steps"]}
    mib = 2**20
    for rank in (0, 1):
        at_del = steps[f"rank {rank}: context_on_gpu0_torchrun.py:12: del x"]
        assert at_del["verdict"] == "cached" and at_del["left"] == 130 * mib and at_del["judged_alone"]
        after = steps[f"rank {rank}: context_on_gpu0_torchrun.py:13: torch.cuda.empty_cache()"]
        assert after["verdict"] == "released" and after["left"] <= after["tol"]
        assert "runtime's own" not in after["detail"]
    assert not [label for label in steps if label.endswith(("start", "import torch"))]
    assert steps["end"]["verdict"] == "released"  # the launcher's own step: the job, judged as before
    (stray,) = multigpu.stray_memory(record)
    assert (stray.rank, stray.own_gpu, stray.other_gpu) == (1, 1, 0)


def test_what_torch_still_holds_after_nccl_gives_back_is_left_not_runtime() -> None:
    """destroy_process_group() returns NCCL's memory, taking the rank below its runtime floor; the
    129 MiB torch still counts live are still left there (rules 7 called the step 'released', all of
    it the runtime's), and the job's answer is the worst rank's last step."""
    from harness.judgement import answer, verdicts
    from harness.store import results

    run = LAUNCHERS / "20261126T065203Z-32ae8c"
    (record,), _ = results.read_records(run)
    steps = {s["label"]: s for s in verdicts.judge(record)["steps"]}
    after = steps["rank 0: ddp_torchrun.py:23: dist.destroy_process_group()"]
    assert after["verdict"] == "partial" and after["live"] > 128 * 2**20 and after["left"] == 132 * 2**20
    said = answer.of_cell(judge_cell(record))
    assert said.back == "part" and said.label.startswith("rank ")


def test_what_each_rank_keeps_after_destroy_process_group_is_said_with_the_fix() -> None:
    """The recorded DDP job of two H200s (torchrun, NCCL): at each rank's destroy_process_group()
    line, its process still holds 1.20 GiB on its GPU: torch's pool (132 MiB, 129 MiB live) and what
    the CUDA context and NCCL keep until exit, each rank on its own GPU."""
    from harness.judgement import multigpu
    from harness.store import results

    record = results.load_record(LAUNCHERS / "20261126T065203Z-32ae8c" / "host-python3" / "repro__ddp_torchrun.json.gz")
    found = sorted(multigpu.after_destroy(record), key=lambda f: f.rank or 0)
    assert [(f.rank, f.gpu) for f in found] == [(0, 0), (1, 1)]
    assert all(f.held == 1291845632 and f.pool == 138412032 for f in found)
    said = found[1].sentence()
    assert said.startswith("After `rank 1: ddp_torchrun.py:23: dist.destroy_process_group()`, rank 1 (PID 742) still "
                           "holds 1.20 GiB on GPU 1: 132.00 MiB in torch's pool (129.02 MiB of it live")
    assert "1.07 GiB that the CUDA context, NCCL's communicators and the libraries keep until the process exits" in said
    assert multigpu.after_destroy({**record, "checkpoints": [c for c in record["checkpoints"]
                                                            if "destroy" not in c["label"]]}) == []


def _one_process(reserved: dict[str, int], env_seen: dict[str, str] | None = None) -> dict:
    """One script process (PID 10) with a context on GPU 0 (518 MiB) and its model on GPU 1 (612 MiB)."""
    cp = {"label": "ts.py:9: torch.cuda.empty_cache()", "readings": {},  # the script's own: no PID of its own
          "view": {"torch": {"in_use": 600 * MiB, "reserved": 610 * MiB, "per_device_reserved": reserved}},
          "gpu_processes": [{"pid": 10, "gpu": 0, "bytes": 518 * MiB, "in_cell": True},
                            {"pid": 10, "gpu": 1, "bytes": 612 * MiB, "in_cell": True}]}
    return {"scenario": {"name": "repro/ts"}, "script_pid": 10, "checkpoints": [cp], "env_seen": env_seen or {}}


def test_one_process_with_a_context_on_a_gpu_it_keeps_nothing_on_is_named_with_the_fix() -> None:
    """A TorchScript model loaded and moved to cuda:1 leaves a context on GPU 0 (a public report: 518 MiB
    on GPU 0, 612 MiB on GPU 1): torch reserves nothing on GPU 0, so the GPU was not the script's choice."""
    from harness.judgement import multigpu

    (found,) = [f for f in multigpu.findings(_one_process({"0": 0, "1": 610 * MiB})) if isinstance(f, multigpu.UnchosenGpu)]
    assert (found.pid, found.gpu, found.chosen, found.bytes) == (10, 0, 1, 518 * MiB)
    assert found.sentence().startswith("PID 10 holds 518.00 MiB on GPU 0 (at `ts.py:9: torch.cuda.empty_cache()`), "
                                       "where torch keeps nothing: its tensors are on GPU 1.")
    assert "`torch.cuda.set_device(1)` first" in found.sentence() and "`map_location='cuda:1'`" in found.sentence()
    assert multigpu.short_findings(_one_process({"0": 0, "1": 610 * MiB}))[0].endswith("(its tensors on GPU 1: a stray "
                                                                                        "CUDA context)")
    assert multigpu.findings(_one_process({"0": 300 * MiB, "1": 310 * MiB})) == []  # its tensors on both: by design
    assert multigpu.findings(_one_process({"0": 0, "1": 610 * MiB}, {"CUDA_VISIBLE_DEVICES": "1,0"})) == []  # renumbered


def test_repro_takes_the_gpus_to_give_the_script() -> None:
    from harness.cli import build_parser

    args = build_parser().parse_args(["repro", "x.py", "--gpus", "1,2"])
    assert args.gpus == [1, 2]
    nvml = PlantedNvml({0: 0, 1: 0, 2: 0}, {0: {}, 1: {}, 2: {}})
    repro = [Scenario(name="repro/x", path=Path("x.py"), mode="repro")]
    assert script_slots([1, 2], repro) == ([1], (1, 2))  # one cell holding GPUs 1 and 2
    assert script_gpus((1, 2), nvml) == {"gpu_indices": (1, 2), "all_gpus": False}  # pinned: CUDA sees those two


def test_each_process_is_named_once_and_the_tables_cells_by_name() -> None:
    """repro.md of a two-rank job: the legend names each process once with the command as the user typed
    it (no wrapper of the tool's, no folder of this machine); each row's cell names them by rank alone."""
    from harness.reporting import processes

    record = _launched([[(11, 0, 900)], [(11, 0, 1500), (12, 1, 1400)]])
    for cp in record["checkpoints"]:
        for p in cp["gpu_processes"]:
            p["command"] = "/venv/bin/python /opt/harness/agent/rank.py /opt/harness/scenario/train.py --epochs 1"
    said = processes.legend(record)
    assert said == ("Processes: rank 0 = PID 11, `python train.py --epochs 1`; rank 1 = PID 12, "
                    "`python train.py --epochs 1`.")
    assert processes.cell(record["checkpoints"][1], record, None) == "rank 0 on GPU 0: 1.46 GiB, rank 1 on GPU 1: 1.37 GiB"
