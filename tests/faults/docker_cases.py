"""Fault cases that need a Docker engine: a failed build beside a working environment, the
engine dying mid-run (a second dockerd of the case's own), an image built otherwise."""
from __future__ import annotations

import os
import sys
from pathlib import Path

from enginekit import SecondEngine, can_start_engines, lose_engine_mid_run
from faultkit import Outcome, cli, records
from helpers import broken_pin

from harness.definitions import config


def _docker_missing() -> str:
    from harness.common.errors import HarnessError
    from harness.environments.docker_client import connect

    try:
        connect(timeout=30)
    except HarnessError as exc:
        return exc.message.split(";")[0]
    return ""


def failed_build_beside_an_env(tmp: Path) -> Outcome:
    missing = _docker_missing()
    if missing:
        return Outcome("-", f"not run: {missing}", "-", True, "")
    script = tmp / "plain.py"
    script.write_text("block = bytearray(1 << 20)\ndel block\n")
    result = cli("repro", str(script), "--interpreter", sys.executable, *broken_pin(tmp), "--results", str(tmp / "r"),
                 env=dict(os.environ, HARNESS_IMAGE_PREFIX="gpu-cleanup-matrix-faults"))
    statuses = sorted(r["status"] for r in records(tmp / "r").values())
    (md,) = (tmp / "r").glob("*/repro.md")
    section = "**torch==0.0.1** did not run" in md.read_text() and "is invalid" in md.read_text()
    ok = result.returncode == 4 and statuses == ["harness-error", "ok"] and section
    return Outcome(str(result.returncode), "+".join(statuses), "no", ok,
                   "repro.md and the block: a section with the cause and pip's last lines" if section else "no section")


def lost_engine(tmp: Path) -> Outcome:
    missing = _docker_missing() or can_start_engines()
    if missing:
        return Outcome("-", f"not run: {missing}", "-", True, "")
    engine = SecondEngine(config.mirrored("python:3.11-slim-bookworm"))
    try:
        engine.open("harness-b:1", "harness-c:1")
        run = lose_engine_mid_run(engine, tmp)
    finally:
        engine.close()
    kinds = sorted({r["error"]["type"] for r in run.cut})
    ok = (run.exit_code in (3, 4) and kinds == ["EngineLost"] and len(run.cut) == 3 and not run.alive_after
          and run.took_s < 60 and run.resumed == ["ok", "ok", "ok"])
    return Outcome(f"{run.exit_code}, resume {run.resumed_exit}", f"3 EngineLost -> {'+'.join(run.resumed)}", "no", ok,
                   f"ended {run.took_s:.0f} s after start; alive after: {run.alive_after or 'none'}; said: "
                   f"{run.last_line[:90]}...")


def image_identity(tmp: Path) -> Outcome:
    missing = _docker_missing()
    if missing:
        return Outcome("-", f"not run: {missing}", "-", True, "")
    from harness.environments import images
    from harness.environments.docker_client import connect

    client = connect()
    env = config.EnvDef(name="identity-six", family=("any",), dockerfile="images/torch", python_version="3.11",
                        variants={"cpu": config.VariantDef(base="python:3.11-slim-bookworm", packages=("six==1.16.0",))})
    plain, other = tmp / "plain", tmp / "other"
    plain.mkdir()
    other.mkdir()
    (other / "six-1.16.0-py2.py3-none-any.whl").write_bytes(b"another build of it")
    os.environ["HARNESS_IMAGE_PREFIX"] = "gpu-cleanup-matrix-faults"
    try:
        images.build(client, env, "cpu", images.BuildOptions(wheelhouse=plain), lambda text: None)
        same = images.image_current(client, env, "cpu", images.BuildOptions(wheelhouse=plain))
        differs = not images.image_current(client, env, "cpu", images.BuildOptions(wheelhouse=other))
        client.images.remove(env.image_tag("cpu"))
        client.images.remove(env.alias_tag("cpu"))
    finally:
        del os.environ["HARNESS_IMAGE_PREFIX"]
    return Outcome("-", f"same build current: {same}; other wheels current: {not differs}", "no", same and differs,
                   "same Dockerfile and pins, other wheels handed over: rebuilt, never taken for the same image")
