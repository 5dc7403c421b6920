"""report.html: one self-contained page (no external assets, viewable offline).

The matrix with a drill-down per cell: the memory timeline (device, process, host RSS and the
framework's own view at each checkpoint) with checkpoint marks, the environment facts, the
stderr tail, and the claims about that cell with their sources. Data travels as JSON inside the
page; a small script (report_assets/report.js) draws the table, and each timeline as a Vega
spec (report_assets/vega-embed.js, inlined once) rendered to SVG. Timelines are reduced to at most
``TIMELINE_POINTS`` points per cell, keeping each bucket's maximum so peaks survive.
"""
from __future__ import annotations

import json
from typing import Any

from harness.judgement import holders, palette, tolerances, verdicts
from harness.model.judged import Judged, MatrixDoc
from harness.model.record import TIMELINE_COLUMNS, CellRecord, ErrorInfo, meter_value
from harness.reporting import glance, machines, templates
from harness.reporting.glance import decisive_step
from harness.reporting.repro_page import ReproPage

TIMELINE_POINTS = 200
STDERR_CHARS = 4000


def _downsample(samples: list[list[Any]], points: int = TIMELINE_POINTS) -> list[list[Any]]:
    if len(samples) <= points:
        return samples
    size = len(samples) / points
    out = []
    for i in range(points):
        bucket = samples[int(i * size): max(int((i + 1) * size), int(i * size) + 1)]
        row: list[Any] = [bucket[0][0]]
        for col in range(1, len(bucket[0])):
            values = [s[col] for s in bucket if s[col] is not None]
            row.append(max(values) if values else None)
        out.append(row)
    return out


def cell_detail(record: CellRecord) -> dict[str, Any]:
    timeline = record.get("timeline") or {}
    judged = record.get("verdicts") or verdicts.judge(record)
    error: ErrorInfo | dict[str, Any] = record.get("error") or {}
    return {
        "scenario": {k: (record.get("scenario") or {}).get(k) for k in ("name", "title", "technique", "seed", "params")},
        "env": record.get("env") or {},
        "facts": record.get("facts") or {},
        "host": {k: (record.get("host") or {}).get(k) for k in ("driver", "gpu", "nvml_available", "nvml_reason")},
        "status": record.get("status"),
        "error": {k: error.get(k) for k in ("type", "message", "traceback")} if error else None,
        "checkpoints": [{k: cp.get(k) for k in ("label", "t", "readings", "view", "skipped")}
                        for cp in record.get("checkpoints") or []],
        "after_exit": (record.get("after_exit") or {}).get("readings"),
        "timeline": {"columns": timeline.get("columns") or TIMELINE_COLUMNS,
                     "samples": _downsample(timeline.get("samples") or []), "rate_hz": timeline.get("rate_hz")},
        "stderr_tail": (record.get("stderr_tail") or "")[-STDERR_CHARS:],
        "verdicts": judged,
        "meters": tolerances.METER_WORDS,  # a step's meter in words
        "floor": _floor(record, judged),
        "holders": [{"label": cp["label"], "said": holders.said_at(cp)}
                    for cp in record.get("checkpoints") or [] if cp.get("holders")],
        "per_gpu": per_gpu_rows(record),
        "duration_s": record.get("duration_s"),
    }


def per_gpu_rows(record: CellRecord) -> list[dict[str, Any]]:
    """Each GPU's readings at each checkpoint of a script given several GPUs (the timeline sums them):
    {t, gpu, device, process, label}; empty for a cell on one GPU."""
    return [{"t": cp.get("t"), "gpu": gpu, "device": values.get("nvml_device"), "process": values.get("nvml_process"),
             "label": cp["label"]}
            for cp in record.get("checkpoints") or [] for gpu, values in sorted((cp.get("per_gpu") or {}).items())]


def _floor(record: CellRecord, judged: Judged) -> dict[str, Any] | None:
    """What the chart draws for the decisive step: the pre-GPU reading of its meter, and the band
    in which a reading counts as released (the judge's floor up to its tolerance), recovered
    exactly from the step: floor = reading - left - what other processes hold."""
    step = decisive_step(judged.get("steps") or [])
    meter = step.get("meter") if step is not None else None
    if step is None or not meter:
        return None
    at = [cp for cp in record.get("checkpoints") or [] if cp.get("label") == step["label"]]
    value = meter_value(at[-1].get("readings"), meter) if at else None
    pre_gpu = record.get("pre_gpu")
    pre = meter_value(pre_gpu.get("readings"), meter) if pre_gpu else None
    if value is None or pre is None:
        return None
    base = value - (step.get("left") or 0) - (step.get("elsewhere") or 0)
    return {"meter": meter, "step": step["label"], "pre": pre, "lo": base, "hi": base + (step.get("tol") or 0)}


def _asset(name: str) -> str:
    return (templates.ASSETS / name).read_text(encoding="utf-8")


def render(matrix: MatrixDoc, records: list[CellRecord], vega_src: str | None = None,
           page: ReproPage | None = None) -> str:
    """The page; with ``vega_src`` Vega is loaded from that relative path instead of inlined (the
    atlas holds many reports beside one copy); with ``page``, a repro's (repro_page.py)."""
    column = machines.column_namer(records)
    details = {f"{r['scenario']['name']}|{column(r)}": cell_detail(r) for r in records}
    shown = {**matrix, "repro": True, "marked": page.marked} if page else matrix
    data = json.dumps({"matrix": shown, "details": details}, separators=(",", ":"), default=str)
    for folder in page.hidden if page else ():  # this machine's folders: the page names what is in them
        data = data.replace(json.dumps(folder + "/")[1:-1], "").replace(json.dumps(folder)[1:-1], "")
    data = data.replace("</", "<\\/")  # a record's text can never close the script element
    return templates.render("report.html", title=page.title if page else glance.title(matrix), lead=page.lead if page else (),
                            style=_asset("report.css") + palette.answer_css(), data=data, vega_src=vega_src,
                            vega=None if vega_src else _asset("vega-embed.js"), script=_asset("report.js"))
