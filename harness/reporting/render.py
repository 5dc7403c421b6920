"""Turning records into something to read: rich tables for the terminal. Prints nothing itself."""
from __future__ import annotations

from rich.table import Table
from rich.text import Text

from harness.common.units import host_memory, human_bytes
from harness.judgement import answer, palette, rules, sentences
from harness.judgement.tolerances import TOLERANCES
from harness.model.judged import CellSummary, MatrixDoc
from harness.model.readings import Readings
from harness.model.record import CellRecord
from harness.reporting import glance, matrix_md
from harness.reporting.glance import NO_GPU
from harness.reporting.repro_notes import folded_iterations

STYLES = palette.STEP_TERMINAL  # the judge's, as rich names them


def styled(word: str | None) -> Text:
    word = word or "-"
    return Text(word, style=STYLES.get(word, ""))


def checkpoint_table(record: CellRecord) -> Table:
    """One row per checkpoint (a long loop folded, as in repro.md): every meter, the framework's view,
    the verdict of cleanup steps; no GPU columns where no GPU was read, no framework column where none counted."""
    scenario, env = record["scenario"], record["env"]
    gpu = bool((record.get("host") or {}).get("nvml_available"))
    counted = any(cp.get("view") for cp in record.get("checkpoints") or [])
    table = Table(title=f"{scenario['name']} @ {env['name']} ({env.get('backend')})", title_justify="left")
    columns = ("checkpoint", "rss", *(("nvml device", "nvml process") if gpu else ()),
               *(("framework in_use / reserved",) if counted else ()), "verdict")
    for column in columns:
        table.add_column(column, justify="left" if column in ("checkpoint", "verdict") else "right")
    judged = {step["label"]: step for step in (record.get("verdicts") or {}).get("steps", [])}
    folded = folded_iterations(record)

    def row(label: str | Text, r: Readings, fw: str, verdict: Text) -> None:
        nvml = (human_bytes(r.get("nvml_device")), human_bytes(r.get("nvml_process"))) if gpu else ()
        table.add_row(label, host_memory(r), *nvml, *((fw,) if counted else ()), verdict)

    for index, cp in enumerate(record.get("checkpoints", [])):
        if index in folded:
            if folded[index]:
                table.add_row(Text("... " + folded[index].split(" of `")[0], style="dim"), *[""] * (len(columns) - 1))
            continue
        views = cp.get("view") or {}
        fw = "; ".join(f"{name}: {human_bytes(v.get('in_use'))} / {human_bytes(v.get('reserved'))}" for name, v in views.items())
        step = judged.get(cp["label"])
        label = cp["label"] + ("" if (cp.get("settle") or {}).get("settled", True) else " (unsettled)")
        word = sentences.step_word(step) if step else ""
        if step and step["verdict"] == "skipped" and step.get("reason"):  # why in full is in repro.md
            word = f"n/a: {str(step['reason']).split(':')[0]}"
        row(label, cp["readings"], fw or "-", Text(word, style=STYLES.get(step["verdict"], "")) if step else Text(""))
    after = record.get("after_exit")
    if after:
        exit_verdict = (record.get("verdicts") or {}).get("exit") or {}
        row("after exit", after["readings"], "-", styled(exit_verdict.get("verdict")))
    return table


def summary_line(record: CellRecord) -> Text:
    status = record.get("status", "?")
    where = f"{record['scenario']['name']} @ {record['env']['name']}"
    text = Text.assemble(styled(status), f"  {where}  {record.get('duration_s', 0):.1f}s")
    error = record.get("error")
    if error:
        text.append(f"  {answer.error_line(error)}")
    return text


def tolerance_line(text: str | None = None) -> str:
    """How the verdicts were reached: a run's own words (matrix.json ``tolerances_text``), else the GPU rule."""
    return f"tolerances: {text or TOLERANCES['text']}; {rules.judged_by()}"




BACK_STYLES = {back: palette.of_back(back).terminal for back in answer.COLOUR}  # the judge's, as rich names them
BACK_GLYPHS = {back: palette.of_back(back).glyph for back in answer.COLOUR}  # the answer without colour (NO_COLOR, a log)
MIN_ENV_WIDTH = 16  # narrower than this, a verdict reads as a column of fragments: one row per cell instead


def _cell_text(cell: CellSummary) -> Text:
    """The landing view's answer (glance.py): the colour says whether the driver got it back, the word why."""
    g = cell["glance"]
    at = f" (at {g['label']})" if g.get("label") else ""
    return Text(f"{BACK_GLYPHS.get(g['back'], '')} {glance.text(g)}{at}", style=BACK_STYLES.get(g["back"], ""))


def _header(matrix: MatrixDoc, env: str) -> str:
    """An environment's column header: its name, and the releases it ran (from its records)."""
    facts = (matrix.get("columns") or {}).get(env)
    releases = " ".join(f"{name} {version}" for name, version in ((facts.get("frameworks") if facts else None) or {}).items())
    return f"{env}\n{releases}" if releases else env


def matrix_table(matrix: MatrixDoc, width: int = 80) -> Table:
    """Scenario rows x environment columns, each cell its answer and claim marks. The scenario name
    is never cut: cells wrap, and where ``width`` leaves an environment fewer than MIN_ENV_WIDTH
    characters the table turns to one row per cell (scenario, environment, answer)."""
    envs = matrix["environments"]
    longest = max([len("scenario"), *(len(s) for s in matrix["scenarios"])])
    long_form = len(envs) > 1 and (width - longest - 3 * (len(envs) + 1)) // len(envs) < MIN_ENV_WIDTH
    table = Table(title=glance.title(matrix), title_justify="left")
    table.add_column("scenario", no_wrap=True, min_width=longest)
    for column in ["environment", "answer"] if long_form else envs:
        table.add_column(column if long_form else _header(matrix, column), overflow="fold")
    symbols: dict[tuple[str, str], str] = {}
    for claim in matrix.get("claims", []):
        for env, result in claim["results"].items():
            symbol = {"confirmed": "✓", "contradicted": "✗", "not reproduced": "○"}.get(result["outcome"], "")
            symbols[(claim["scenario"], env)] = symbols.get((claim["scenario"], env), "") + symbol
    compared = matrix.get("compare")
    changed = {(c["scenario"], c["env"]) for c in compared["changed"]} if compared else set()

    def text(name: str, env: str) -> Text:
        cell = matrix["cells"].get(name, {}).get(env)
        if cell is None:
            return Text("n/a", style="dim")
        shown = _cell_text(cell)
        shown.append(f" [claims {symbols[(name, env)]}]" if symbols.get((name, env)) else "")
        shown.append(" Δ" if (name, env) in changed else "")
        return shown

    for name in matrix["scenarios"]:
        if long_form:
            for env in envs:
                if env in matrix["cells"].get(name, {}):
                    table.add_row(name, env, text(name, env))
        else:
            table.add_row(name, *(text(name, env) for env in envs))
    return table


def matrix_summary(matrix: MatrixDoc) -> str:
    statuses: dict[str, int] = {}
    for row in matrix["cells"].values():
        for cell in row.values():
            status = str(cell["status"])
            statuses[status] = statuses.get(status, 0) + 1
    outcomes = {"confirmed": 0, "contradicted": 0, "not reproduced": 0, "untestable": 0}
    for claim in matrix.get("claims", []):
        for result in claim["results"].values():
            outcomes[result["outcome"]] += 1
    cells = ", ".join(f"{n} {s}" for s, n in sorted(statuses.items()))
    claims = ", ".join(f"{n} {o}" for o, n in outcomes.items())
    if matrix.get("machine") == NO_GPU:  # counted as matrix.md counts them: claims, not claim x environment
        _, undecided = matrix_md.claims_to_show(matrix)
        claims = (f"{outcomes['confirmed']} confirmed, {outcomes['contradicted']} contradicted, "
                  f"{outcomes['not reproduced']} not reproduced; no GPU here, so the {undecided} claims about GPU "
                  "memory are not decided")
    changed = matrix.get("compare")
    diff = f"; {len(changed['changed'])} changed since {changed['other']}" if changed else ""
    if not any(claim["results"] for claim in matrix.get("claims", [])):  # a script's repro decides no claim
        return f"{cells}{diff}"
    return f"{cells}; claims: {claims}{diff}"
