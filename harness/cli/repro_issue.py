"""`repro issue.md`: what the report states, said before anything runs, and after the run one sentence
per framework (judgement/issue_answer.py) on the reporter's releases and today's, in the terminal
and at the end of repro.md."""
from __future__ import annotations

from pathlib import Path

from harness.judgement import answer, failures, issue_answer
from harness.judgement.cell import judge_cell
from harness.model.judged import MatrixDoc
from harness.model.record import CellRecord, Status
from harness.running.issue import IssuePlan


def stated_lines(plan: IssuePlan) -> list[str]:
    """The block chosen and every release the report states, each with its line, and what will run."""
    lines = [f"Code: block {plan.block.number} of {plan.blocks} (line {plan.block.first_line}), as "
             f"{plan.script.name}; --block N runs another."]
    if plan.replay.way == "ipython":
        cells = "each top-level statement a cell" if plan.replay.per_statement else "the block as one cell"
        lines.append(f"Replayed in an IPython shell, {cells}: {plan.replay.why}; --as script replays it as a script.")
    if plan.stated:
        lines.append("Versions the report states:")
        for item in plan.stated:
            role = {"good": " (said to work)", "bad": " (said to have the bug)"}.get(item.role, "")
            role = " (the interpreter)" if item.package == "python" else role
            if item.contradicted:
                role = (f" (said to work and to have the bug: line {item.line} and line {item.contradicted} say "
                        "opposite things; its run decides, or --with runs the release you mean)")
            lines.append(f"  {item.package} {item.version}{role}: line {item.line}, {item.how}: {item.text[:100]}")
    else:
        lines.append("The report states no release of the frameworks its code imports: today's only "
                     "(--with PKG==VER adds the reporter's).")
    if plan.python:
        lines.append(f"Python {plan.python.version} (line {plan.python.line}, {plan.python.how}): the reporter's interpreter.")
    if plan.packages:
        lines.append(f"The code imports {', '.join(p.split('==')[0] for p in plan.packages)} besides its framework: "
                     f"installed in every environment ({', '.join(plan.packages)} in the reporter's; --pip PKG==VER pins "
                     "one everywhere).")
    for framework, releases in plan.releases.items():
        today = "today's environment" if not plan.today else f"today's {plan.today.split('==')[1]}"
        lines.append(f"Runs {framework} {', '.join(releases)} (the reporter's) beside {today}.")
    if plan.subject and not plan.releases.get(plan.subject):
        lines.append(f"The code imports no framework: it runs on {plan.today or plan.subject} (today's {plan.subject}) "
                     "in a virtualenv of its own (--with PKG==VER adds the reporter's).")
    if plan.rate:
        lines.append(f"The report's own figure for its growth: {plan.rate.words} (line {plan.rate.line}); a release "
                     "whose loop grows ten times slower here does not reproduce it.")
    lines += plan.notes
    return lines


def _said(plan: IssuePlan, framework: str, release: str) -> str:
    """What the report says of ``release``: its own words for it, or for its minor ("leaks on 2.11")."""
    stated = [s for s in plan.stated if s.package == framework]
    roles = {s.role for s in stated if release == s.version.split("+")[0] or release.startswith(s.version + ".")}
    return "bad" if "bad" in roles else "good" if "good" in roles else ""


def replays(plan: IssuePlan, records: list[CellRecord]) -> list[issue_answer.Replay]:
    """Each record as a replay: the reporter's release it pinned, or today's environment of the framework."""
    found = []
    for record in records:
        env, versions = record.get("env") or {}, (record.get("facts") or {}).get("frameworks") or {}
        named = list(plan.releases) or [f for f in plan.imported if f in versions] or ([plan.subject] if plan.subject else [])
        for framework in named:
            pin = next((p for p in str(env.get("pin") or "").split(",") if p.startswith(f"{framework}==")), None)
            if not pin and (env.get("pin") or framework not in versions):
                continue
            release = pin.split("==")[1] if pin else str(versions[framework]).split("+")[0]
            made = record.get("status") not in (Status.HARNESS_ERROR, Status.SKIPPED)
            ran = record.get("status") == Status.OK
            summary = judge_cell(record)  # its error: the judge's reason first (a GPU this host lacks)
            why = "" if ran else (failures.missing_module(record) or summary.get("error")
                                  or answer.error_line(record.get("error")) or str(record.get("status")))
            judged = answer.of_cell(summary) if made and summary.get("status") != "unsupported" else None
            today = pin is None or pin.split(",")[0] == plan.today  # no framework: today's release is a pin too
            rate = plan.rate
            found.append(issue_answer.Replay(framework, release, today=today, answer=judged, why=why[:200],
                                             said=_said(plan, framework, release), ran=ran,
                                             imported=issue_answer.import_cost(record),
                                             reported=rate.amount if rate else 0.0, reported_words=rate.words if rate else ""))
    return found


def answers(plan: IssuePlan, records: list[CellRecord]) -> list[str]:
    """A sentence per framework; its bisect names the code as written out, from here (never an absolute path)."""
    done = replays(plan, records)
    try:
        script = str(plan.script.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        script = plan.script.name
    return [issue_answer.sentence(f, done, script) for f in dict.fromkeys(r.framework for r in done)]


def markdown(plan: IssuePlan, said: list[str]) -> str:
    """The section repro.md ends with: what was stated, and the answer per framework."""
    return "\n".join(["", "### Does the report reproduce?", "",
                      f"Releases the report states: {stated_line(plan)}.", "", *(f"- {line}" for line in said), ""]) + "\n"


def stated_line(plan: IssuePlan) -> str:
    """The releases a report states, each with its line and the format that said it."""
    return "; ".join(f"{s.package} {s.version} (line {s.line}, {s.how})" for s in plan.stated) or "none"


def write_block(run_dir: Path, records: list[CellRecord], script: Path, matrix: MatrixDoc) -> tuple[str, list[str]]:
    """repro.md, whole: the environments' tables and, for a pasted report (its plan kept in the run folder), the
    answer per framework; written to RUN_DIR/repro.md. The one writer for repro, a resumed run and `report`."""
    from harness.reporting import repro_md
    from harness.running import issue_saved
    from harness.store import results

    block, said = repro_md.markdown(records, script), []
    plan = issue_saved.load(run_dir)
    if plan is not None:
        said = answers(plan, records)
        block += markdown(plan, said)
    try:
        results.write_text(run_dir / "repro.md", block)
        write_page(run_dir, records, script, plan, said, matrix)
    except OSError as exc:
        raise results.unwritable(run_dir, exc) from exc
    return block, said


def write_page(run_dir: Path, records: list[CellRecord], script: Path, plan: IssuePlan | None, said: list[str],
               matrix: MatrixDoc) -> None:
    """report.html as repro's page (repro_page.py), over the matrix page the run wrote from ``matrix``: the same
    records."""
    from harness.reporting import repro_page
    from harness.reporting.report_html import render
    from harness.store import results

    if plan is not None:
        lead = [f"Releases the report states: {stated_line(plan)}.", *said]
    else:
        lead = [f"{r['env']['name']}: {answer.of_cell(judge_cell(r)).text}" for r in records if r.get("env")]
    page = repro_page.page(matrix, records, script, lead, plan.releases if plan is not None else None)
    results.write_text(run_dir / "report.html", render(matrix, records, page=page))
