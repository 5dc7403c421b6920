"""repro's Markdown block for an issue thread: per environment, what the script's memory did.

Rendering only (the judging is in judgement/): the environment line, the runtime's cost, what
the script's own process gained outside any pool, one row per checkpoint with the script's own
process and its other processes apart, timeline peaks between checkpoints, loop growth, how its
processes ended, and what the harness had to kill.
"""
from __future__ import annotations

import re
import shlex
from pathlib import Path

from harness import __version__
from harness.common.fetched_libraries import aliases_said
from harness.common.fetched_libraries import said as fetched_said
from harness.common.units import host_memory, human_bytes
from harness.judgement import answer, attribution, multigpu, rules, sentences, tolerances, verdicts
from harness.judgement.cell import judge_cell
from harness.judgement.tolerances import TOLERANCES
from harness.model.judged import Step
from harness.model.record import CellRecord, Checkpoint, Environment, ErrorInfo, Status
from harness.reporting import glance, processes
from harness.reporting.repro_notes import folded_iterations, heap_lines, holder_lines, loop_lines, notebook_lines
from harness.reporting.timeline_peaks import Peak, peaks_between


def _env_line(record: CellRecord) -> str:
    facts, env, host = record.get("facts") or {}, record.get("env") or {}, record.get("host") or {}
    versions = (facts.get("frameworks") or {}).items()
    frameworks = ", ".join(f"{k} {v}" for k, v in versions if k != "numpy") or "no framework imported"
    gpu = (host.get("gpu") or {}).get("name") or "no GPU"
    python = facts.get("python") or (record.get("agent") or {}).get("python") or "?"
    return (f"**{env.get('name')}**: {frameworks}; Python {python}; driver {host.get('driver') or 'n/a'}; "
            f"{gpu}; {_where(env)}")


def _where(env: Environment) -> str:
    """Where it ran, by what it is (``image PREFIX/torch:gpu-...``, ``a virtualenv of torch==2.4.1``), never a path here."""
    packages = ", ".join(env.get("packages") or [])
    if env.get("backend") == "docker":
        return f"image {env.get('image')}" + (f" ({packages} on {env.get('base')})" if packages else "")
    if env.get("backend") == "venv":
        said = aliases_said(env.get("cuda_aliases") or []) + (["CUDA_PATH at their headers"] if env.get("cuda_path") else [])
        # NVIDIA's wheels where it installed some; what it fetched where no NVIDIA wheel has that CUDA, named
        wheels = "CUDA from NVIDIA's wheels" if "/nvidia/" in str(env.get("library_path") or "") else ""
        source = " and ".join(part for part in (wheels, fetched_said(env.get("cuda_libraries") or [])) if part)
        cuda = f" with {source} on its library path" + (f" ({'; '.join(said)})" if said else "") if source else ""
        index = f" ({env['index_note']})" if env.get("index_note") else ""  # why not the index it asked for
        return (f"a virtualenv of {packages}" if packages else "a virtualenv") + cuda + index
    return f"the interpreter {Path(str(env.get('interpreter') or 'python')).name}"


def portable(command: str) -> str:
    """The command as typed, each path in it by its name (a paste names no folder of this machine)."""
    return shlex.join([Path(w).name if "/" in w and not w.startswith("-") else w for w in shlex.split(command)])


def killed_clause(record: CellRecord) -> str:
    """``, once the harness had killed ...``: processes the cell left running, named, or ``""``."""
    killed = record.get("killed") or []
    if not killed:
        return ""
    named = "; ".join(f"PID {k['pid']} ({k['role']}) `{k['command'][:80]}`, RSS {human_bytes(k.get('rss'))}"
                      + (f", GPU {human_bytes(k['gpu'])}" if k.get("gpu") is not None else "") for k in killed)
    what = "process" if len(killed) == 1 else "processes"
    return f", once the harness had killed {len(killed)} {what} still running as the cell ended: {named}"


ERROR_LINE = re.compile(r"^\s*[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt)\b.*")


def process_lines(record: CellRecord) -> list[str]:
    """How the script's processes ended where its status does not tell: a failed fork, a late exit."""
    lines = []
    failed = record.get("children_failed") or []
    if failed:
        errors = [m.group(0).strip() for m in map(ERROR_LINE.match, str(record.get("stderr_tail") or "").splitlines()) if m]
        last = f" (the last error line on the cell's stderr: `{errors[-1][:200]}`)" if errors else ""
        codes = ", ".join(f"PID {c['pid']} exited with code {c['code']}" for c in failed)
        of = f"{len(failed)} of {record.get('children_exited', len(failed))}"
        lines.append(f"A process the script forked failed ({of} forked processes that exited): {codes}{last}.")
    if (record.get("exit_s") or 0) >= 1:
        lines.append(f"The script's process exited {record['exit_s']:.1f} s after its last line (threads, atexit "
                     "handlers or workers it waits for).")
    return lines


def outside_allocator(record: CellRecord) -> tuple[str, int] | None:
    """(label, bytes) the script's own process gained outside every allocator between the first and
    the last checkpoint: libraries loaded on first use (cuBLAS, cuDNN kernels, handles), which no
    cleanup call returns. Its other processes are never counted here. None when no framework
    reports its pool, or the gain is below the signal."""
    pid = attribution.judged_pid(record)
    cps = [cp for cp in record.get("checkpoints") or [] if cp.get("readings", {}).get("nvml_process") is not None]
    if len(cps) < 2:
        return None

    def pooled(cp: Checkpoint) -> int | None:
        views = [v.get("reserved") for v in (cp.get("view") or {}).values()]
        return None if not views or None in views else sum(int(v or 0) for v in views)

    first, last = cps[0], cps[-1]
    if pooled(first) is None or pooled(last) is None:
        return None
    gained = int(attribution.own_reading(last, pid) or 0) - int(attribution.own_reading(first, pid) or 0)
    outside = gained - (int(pooled(last) or 0) - int(pooled(first) or 0))
    return (last["label"], outside) if outside > tolerances.METER_RULES["nvml_process"].min_signal else None




def _variables_line(record: CellRecord) -> str:
    """The memory-relevant variables the script saw (and which of them --setenv set), or ''."""
    seen, setenv = record.get("env_seen") or {}, record.get("setenv") or {}
    if not seen and not setenv:
        return ""
    gpu = (record.get("host") or {}).get("gpu_index")
    # What the harness set (harness_env); a record from before it was kept: the cell's one GPU unless the user set it.
    pinned = record.get("harness_env")
    if pinned is None:
        pinned = {"CUDA_VISIBLE_DEVICES": str(gpu), "CUDA_DEVICE_ORDER": "PCI_BUS_ID"} if gpu is not None else {}
    whose = "the cell's GPUs" if "," in str(pinned.get("CUDA_VISIBLE_DEVICES")) else "the cell's GPU"

    def origin(name: str, value: str) -> str:
        if name in setenv:
            return " (--setenv)"
        return f" (the harness: {whose})" if pinned.get(name) == value else ""
    shown = ", ".join(f"`{k}={v}`{origin(k, v)}" for k, v in sorted({**seen, **setenv}.items()))
    return f"Variables: {shown}"


def _peak_row(peak: Peak, others: bool, gpu: bool, launched: bool = False, counted: bool = True) -> list[str]:
    """A timeline peak: the cell's processes together (the timeline does not tell them apart)."""
    where = f"between `{peak['after']}` and `{peak['before']}`" if peak["before"] else f"after `{peak['after']}`"
    r = peak["readings"]
    together = " (the job's processes)" if launched else " (with its other processes)" if others else ""
    own = [f"{human_bytes(r.get('nvml_process'))}{together}"]
    when, source = (f"at {peak['t_s']:.2f} s", "(timeline)") if peak["t_s"] is not None else (
        "too brief for the timeline", "(the host's high-water mark)")
    return _row([f"*peak {where.replace('|', chr(92) + '|')}, {when}*", *own, *([""] if others else []),
                 human_bytes(r.get("nvml_device")), host_memory(r), source, "" if counted else source], gpu, others, counted)


def _row(cells: list[str], gpu: bool, others: bool, counted: bool = True) -> list[str]:
    """A table row in the order the header has; without a GPU the GPU columns (all n/a) are left out, and the
    framework's column where no framework counted anything (a column of "-")."""
    if not gpu:
        cells = [cells[0], *cells[3 + others:]]
    return cells if counted else [*cells[:-2], cells[-1]]


HEADER = ["checkpoint", "GPU, the script's process", "GPU, its other processes", "GPU, device", "host RSS",
          "framework in use / reserved", "verdict"]
# A launcher's command or spawned ranks: the job's processes (the launcher or the script and its ranks), each named per GPU.
LAUNCHED_HEADER = ["checkpoint", "GPU, the job's processes", "GPU, per process", *HEADER[3:]]


def never_ran(record: CellRecord) -> bool:
    """An environment the script never ran in: skipped here, or not built or started."""
    return record.get("status") in (Status.SKIPPED, Status.HARNESS_ERROR) and not record.get("checkpoints")


def not_run_section(record: CellRecord) -> list[str]:
    """Why an environment that was asked for has no results: the cause in one line, then the
    build log's (or engine's) last lines, so the thread's reader sees what failed, not a gap."""
    error: ErrorInfo = record.get("error") or {"type": ""}
    cause, _, log = str(error.get("message") or "no reason recorded").partition("\n")
    how = ("was skipped here" if record.get("status") == Status.SKIPPED else "did not run" if error.get("why")
           else "did not run: it could not be built or started")
    lines = [f"**{record['env']['name']}** {how}: {cause.strip()}", ""]
    tail = [line for line in log.splitlines() if line.strip()][-15:]
    return lines + (["```", *tail, "```", ""] if tail else [])


def markdown(records: list[CellRecord], script: Path) -> str:
    """The per-environment results as one Markdown block for an issue thread."""
    gpu = any((r.get("host") or {}).get("nvml_available") for r in records)
    measured = any(r.get("status") != Status.SKIPPED for r in records)  # a skipped environment measured no host
    lines = [f"### {'GPU' if gpu else 'Host' if measured else 'The'} memory of `{script.name}`, per environment", ""]
    if measured and not gpu:
        lines += ["No NVIDIA GPU here: host memory (RSS) only; run it on a machine with a GPU for GPU memory.", ""]
    command = next((c for c in ((r.get("scenario") or {}).get("command") for r in records) if c), None)
    notebook = any((r.get("scenario") or {}).get("notebook") for r in records)
    if command and not notebook:
        starter = "the launcher" if any((r.get("scenario") or {}).get("launcher") for r in records) else "the script"
        ranks = (f", each rank's (or worker's) checkpoints labelled with it; the GPU columns add up {starter} and all "
                 "its processes, each rank's verdict is judged on its own process and its own GPU") \
            if any(map(attribution.launched, records)) else ""
        lines += [f"Run as `{portable(command)}`{ranks}.", ""]
    missing = [r["env"]["name"] for r in records if never_ran(r) and r.get("status") != Status.SKIPPED]
    if missing:
        lines += [f"Not every environment asked for ran: {', '.join(f'`{m}`' for m in missing)} (the cause is in "
                  "its section below).", ""]
    for record in records:
        if never_ran(record):
            lines += not_run_section(record)
            continue
        lines += [_env_line(record), "", *notebook_lines(record)]
        variables = _variables_line(record)
        if variables:
            lines += [variables, ""]
        verdict_of = record.get("verdicts") or verdicts.judge(record)
        if verdict_of.get("runtime_cost"):
            lines += [f"The runtime (CUDA context and libraries) took {human_bytes(verdict_of['runtime_cost'])} of GPU "
                      f"memory at `{verdict_of['first_touch']}`; nothing gives it back before exit, so it is not counted "
                      f"as left.", ""]
        outside = outside_allocator(record)
        if outside:
            lines += [f"By `{outside[0]}` the process held {human_bytes(outside[1])} more than at the start outside any "
                      f"allocator's pool: libraries loaded on first use (cuBLAS, cuDNN kernels and handles), which no "
                      f"cleanup call returns before exit; it is part of what is left below.", ""]
        judged = {s["label"]: s for s in verdict_of.get("steps", [])}
        peaks = peaks_between(record)
        pid = attribution.judged_pid(record)
        cps = record.get("checkpoints") or []
        launched = attribution.launched(record)
        others = launched or any(attribution.other_processes(cp, pid)[0] for cp in cps)
        named = processes.legend(record) if others else ""
        lines += [named, ""] if named else []
        counted = any(cp.get("view") for cp in cps)  # some framework said its own count
        header = _row([h for h in (LAUNCHED_HEADER if launched else HEADER) if others or h != HEADER[2]], gpu, others,
                      counted)
        lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        folded = folded_iterations(record)
        for index, cp in enumerate([*cps, None]):
            if index in peaks:
                lines.append("| " + " | ".join(_peak_row(peaks[index], others, gpu, launched, counted)) + " |")
            if cp is None:
                break
            if index in folded:
                if folded[index]:
                    lines.append(f"| *{folded[index]}* |" + " |" * (len(header) - 1))
                continue
            r, views = cp["readings"], cp.get("view") or {}
            fw = "; ".join(f"{n} {human_bytes(v.get('in_use'))} / {human_bytes(v.get('reserved'))}" for n, v in views.items())
            step = judged.get(cp["label"]) or Step(label=cp["label"], verdict="")
            verdict = sentences.step_word(step)
            if step.get("left") is not None and step.get("verdict") not in ("skipped", "") and not step.get("word"):
                children = r.get("rss_children") if step.get("meter") == "rss" else None
                apart = f", the reading's {human_bytes(children)} in child processes among it" if children else ""
                verdict += f" ({human_bytes(step['left'])} left{apart})"
            if step.get("detail") and verdict:
                verdict += ": " + str(step["detail"]).replace("|", "\\|")
            label = cp["label"].replace("|", "\\|")
            cells = [f"`{label}`", human_bytes(attribution.own_reading(cp, pid)),
                     *([processes.cell(cp, record, pid)] if others else []),
                     human_bytes(r.get("nvml_device")),
                     host_memory(r), fw or "-", verdict]
            lines.append("| " + " | ".join(_row(cells, gpu, others, counted)) + " |")
        findings = multigpu.findings(record)
        if findings:
            lines += ["", *(f"- {finding.sentence()}" for finding in findings)]
        lines += holder_lines(record)
        lines += heap_lines(record)
        looped = loop_lines(record)
        if looped:
            lines += ["", "Growth per loop iteration:", *looped]
        if record.get("status") == Status.OK:  # the judge's answer for the environment, as every other output gives it
            lines.append(f"\nAnswer: **{glance.text(judge_cell(record)['glance'])}**.")
        # the judge's word: a build's limit on the GPU is unsupported, with why
        exit_verdict = (verdict_of.get("exit") or {}).get("verdict")
        status = verdict_of.get("status") or record.get("status")
        error: ErrorInfo = record.get("error") or {"type": ""}
        if error.get("why"):  # the harness lost the cell (its engine went): what it measured stays above
            lines.append(f"\nStatus: **{status}**: {error['message']}{killed_clause(record)}.\n")
            continue
        if status != Status.OK:
            why = verdict_of.get("unsupported_reason") or verdict_of.get("harness_reason")
            said = f"`{answer.error_line(error)[:200]}`"
            lines.append(f"\nStatus: **{status}**: {why} ({said})" if why else f"\nStatus: **{status}**: {said}")
        ended = process_lines(record)
        lines += ["", *ended] if ended else []
        lines.append(f"\nAfter exit: {exit_verdict or 'n/a'}{killed_clause(record)}.\n")
        lines += [f"Note: {note}.\n" for note in (record.get("scenario") or {}).get("notes") or []]
    if gpu:
        lines.append(f"Measured from outside the process with NVML (per-process and device) and /proc (RSS) by "
                     f"gpu-cleanup-matrix {__version__}; {TOLERANCES['text']}; {rules.judged_by()}.")
    else:
        lines.append(f"Measured from outside the process with /proc (RSS) by gpu-cleanup-matrix {__version__}; "
                     f"{tolerances.tolerances_text(host_only=True)}; {rules.judged_by()}.")
    return "\n".join(lines) + "\n"
