"""Finishing a run later: what a run asked for, kept in its manifest, and the options that plan
the same cells again (``--resume``: only those without a finished record run)."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, cast

from harness.common.errors import UsageError
from harness.definitions import config
from harness.model.manifest import Request
from harness.running.request import MatrixOptions, kept_fields
from harness.store import results


def request_of(options: MatrixOptions) -> Request:
    """What was asked, kept in the manifest so --resume can plan the same cells again."""
    return cast(Request, {  # the kept options by name (kept_fields), then what the command line named
        **{name: getattr(options, name) for name in kept_fields()},
        "extra_envs": [{"image": e.image, "interpreter": e.interpreter, "family": list(e.family)} for e in options.extra_envs],
        "items": [{"path": str(i.path), "timeout": i.timeout, "argv": list(i.argv), "launch": list(i.launch),
                   "command": i.command, "cells": f"{i.cells[0]}-{i.cells[1]}" if i.cells else None}
                  for i in options.items or [] if i.mode == "repro"] or None,
    })


def resume_options(run_dir: Path, base: MatrixOptions) -> MatrixOptions:
    """The options a run was started with (its manifest's request), to finish it: --resume."""
    from harness.running import repro

    try:
        manifest = results.read_manifest(run_dir)
        asked = manifest["request"]
    except (OSError, ValueError, KeyError) as exc:
        raise UsageError(f"--resume {run_dir}: no manifest with the run's request there ({exc}); "
                         "give a run folder this version wrote") from exc
    extra = config.distinct_names([config.adhoc_image(e["image"], e["family"]) if e["image"]
                                   else config.adhoc_interpreter(e["interpreter"], e["family"])
                                   for e in asked.get("extra_envs") or []])
    items = [replace(repro.script_scenario(Path(i["path"]), i["timeout"], plain=True, setenv=asked.get("setenv"),
                                           cells=i.get("cells")),
                     argv=tuple(i.get("argv") or ()), launch=tuple(i.get("launch") or ()), command=i.get("command") or "")
             for i in asked.get("items") or []] or None
    plain = cast(dict[str, Any], asked)  # the kept options by their names (kept_fields), as MatrixOptions has them
    kept = {name: plain[name] for name in kept_fields() if name in plain}  # a run from before a field was kept: its default
    kept["cluster"] = base.cluster or asked.get("cluster")  # a cluster named now is where the rest runs
    return replace(base, **kept, extra_envs=extra, items=items,
                   results_root=run_dir.parent, run_id=run_dir.name, resume=True)
