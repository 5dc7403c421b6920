"""A pasted report's plan kept in its run folder (``issue.json``), so that what finishes or re-renders the run
later (``matrix --resume RUN_DIR`` after a Ctrl-C, ``report RUN_DIR``) writes repro.md whole, its "Does the
report reproduce?" section included, without reading the report or the package index again."""
from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from harness.running import issue_replay, issue_text, issue_versions
from harness.running.issue import IssuePlan, ReportedRate
from harness.store import results

NAME = "issue.json"


def save(plan: IssuePlan, run_dir: Path) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    kept = {"script": str(plan.script), "block": asdict(plan.block), "blocks": plan.blocks,
            "stated": [asdict(s) for s in plan.stated], "releases": plan.releases, "imported": plan.imported,
            "notes": plan.notes, "packages": plan.packages, "beside": plan.beside, "replay": asdict(plan.replay),
            "python": asdict(plan.python) if plan.python else None, "subject": plan.subject, "today": plan.today,
            "rate": asdict(plan.rate) if plan.rate else None}
    results.write_text(run_dir / NAME, json.dumps(kept, indent=1, sort_keys=True) + "\n")


def load(run_dir: Path) -> IssuePlan | None:
    """The plan a repro of a pasted report kept, or None (a script's run, or a folder from before it was kept)."""
    try:
        kept = json.loads((run_dir / NAME).read_text(encoding="utf-8"))
        return IssuePlan(Path(kept["script"]), issue_text.Block(**kept["block"]), int(kept["blocks"]),
                         [issue_versions.Stated(**s) for s in kept["stated"]], releases=kept["releases"],
                         imported=kept["imported"], notes=kept["notes"], packages=kept["packages"], beside=kept["beside"],
                         replay=issue_replay.Replay(**kept["replay"]),
                         python=issue_versions.Stated(**kept["python"]) if kept.get("python") else None,
                         subject=kept.get("subject"), today=kept.get("today") or "",
                         rate=ReportedRate(**kept["rate"]) if kept.get("rate") else None)
    except (OSError, ValueError, KeyError, TypeError):
        return None
