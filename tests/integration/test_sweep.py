"""`sweep` end to end over a planted package: real wheels in a folder index, one virtualenv per
release, the real agent measuring each; a change planted at 1.2.0, a release that cannot be
installed (a source archive only) as a skipped column."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT

from harness.environments import venvs

PACKAGE, MODULE = "harness-planted", "harness_planted"
WHEELS = ("1.0.0", "1.1.0", "1.1.1", "1.2.0", "1.3.0")
SOURCE_ONLY = "1.4.0"
CODE = '''_kept = []
__version__ = "{version}"


def work():
    block = bytearray(192 << 20)
    if {leaks}:
        _kept.append(block)  # the planted regression: a module-level cache keeps every block
    return block
'''
SCRIPT = '''import gc
import harness_planted

block = harness_planted.work()
del block
gc.collect()
print("planted", harness_planted.__version__)
'''


def _wheel(folder: Path, version: str) -> str:
    name = f"{MODULE}-{version}-py3-none-any.whl"
    info = f"{MODULE}-{version}.dist-info"
    files = {f"{MODULE}/__init__.py": CODE.format(version=version, leaks=version >= "1.2.0"),
             f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {PACKAGE}\nVersion: {version}\n",
             f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    files[f"{info}/RECORD"] = "".join(f"{path},,\n" for path in [*files, f"{info}/RECORD"])
    with zipfile.ZipFile(folder / name, "w") as archive:
        for path, text in files.items():
            archive.writestr(path, text)
    return name


def _index(tmp_path: Path) -> tuple[Path, Path]:
    wheels, index = tmp_path / "wheels", tmp_path / "index" / PACKAGE
    wheels.mkdir()
    index.mkdir(parents=True)
    names = [_wheel(wheels, v) for v in WHEELS]
    sdist = f"{MODULE}-{SOURCE_ONLY}.tar.gz"
    (wheels / sdist).write_bytes(b"")
    anchors = "".join(f'<a href="{(wheels / n).as_uri()}">{n}</a>\n' for n in [*names, sdist])
    (index / "index.html").write_text(f"<html><body>\n{anchors}</body></html>\n")
    return wheels, index.parent


def test_a_sweep_marks_the_planted_change_and_skips_what_cannot_install(tmp_path: Path) -> None:
    wheels, index = _index(tmp_path)
    script = tmp_path / "planted.py"
    script.write_text(SCRIPT)
    results = tmp_path / "results"
    argv = [sys.executable, "-m", "harness", "sweep", "--package", PACKAGE, "--from", "1.0.0", "--to", SOURCE_ONLY,
            "--script", str(script), "--backend", "venv", "--venv-dir", str(tmp_path / "venvs"), "--index-url", index.as_uri(),
            "--wheelhouse", str(wheels), "--results", str(results), "--variant", "cpu"]
    result = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=1200,
                            env=dict(os.environ, NO_COLOR="1", COLUMNS="200"))
    assert "5 releases of harness-planted: 1.0.0, 1.1.1, 1.2.0, 1.3.0, 1.4.0" in result.stderr  # each minor's newest
    (run_dir,) = [p for p in results.iterdir() if p.is_dir()]
    summary = json.loads((run_dir / "sweep.json").read_text())
    matrix = json.loads((run_dir / "matrix.json").read_text())
    pins = [f"{PACKAGE}=={v}" for v in ("1.0.0", "1.1.1", "1.2.0", "1.3.0", SOURCE_ONLY)]
    assert matrix["environments"] == pins and matrix["sweep"]["releases"] == summary["releases"]  # ordered by version
    (row,) = matrix["cells"].values()
    assert row[pins[-1]]["status"] == "skipped" and "only a source archive" in summary["skipped"][pins[-1]]
    if venvs.find_python("3.11") is None:  # the plan picks 3.11 for a py3 wheel: absent here, every column skipped
        assert {c["status"] for c in row.values()} == {"skipped"}
        return
    assert result.returncode == 0, result.stderr[-3000:]
    assert [row[p]["glance"]["back"] for p in pins] == ["all", "all", "none", "none", "n/a"], [row[p]["glance"] for p in pins]
    (change,) = summary["changes"]
    assert (change["release"], change["before_release"]) == ("1.2.0", "1.1.1")
    assert change["before"] == "released to the OS" and change["after"].startswith("held by the process: 192.")
    assert "changed in 1.2.0: 1.1.1 released" in result.stdout
    assert f"{pins[-1]}: not run" in (run_dir / "sweep.md").read_text()
    assert set(summary["prepare_s"]) == set(pins[:-1]) and all(s >= 0 for s in summary["prepare_s"].values())
    html = (run_dir / "report.html").read_text()
    assert '"changes":[{' in html  # the page marks the change too


def test_a_library_sweeps_over_a_framework_pin_held_fixed(tmp_path: Path) -> None:
    """A library's releases as columns, each made with the same framework release (--with): the
    pin rides in every column, and the planted change is still found."""
    wheels, index = _index(tmp_path)
    framework = "torch-0.0.1-py3-none-any.whl"  # a stand-in framework: the pin's name decides the family
    files = {"torch/__init__.py": '__version__ = "0.0.1"\n',
             "torch-0.0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: torch\nVersion: 0.0.1\n",
             "torch-0.0.1.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    files["torch-0.0.1.dist-info/RECORD"] = "".join(f"{p},,\n" for p in [*files, "torch-0.0.1.dist-info/RECORD"])
    with zipfile.ZipFile(wheels / framework, "w") as archive:
        for path, text in files.items():
            archive.writestr(path, text)
    (index / "torch").mkdir()
    (index / "torch" / "index.html").write_text(f'<a href="{(wheels / framework).as_uri()}">{framework}</a>\n')
    script = tmp_path / "planted.py"
    script.write_text("import torch\n" + SCRIPT + "print('torch', torch.__version__)\n")
    results = tmp_path / "results"
    argv = [sys.executable, "-m", "harness", "sweep", "--package", PACKAGE, "--from", "1.1.0", "--to", "1.2.0",
            "--with", "torch==0.0.1", "--script", str(script), "--backend", "venv", "--venv-dir", str(tmp_path / "venvs"),
            "--index-url", index.as_uri(), "--wheelhouse", str(wheels), "--results", str(results), "--variant", "cpu"]
    result = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=1200,
                            env=dict(os.environ, NO_COLOR="1", COLUMNS="200"))
    if venvs.find_python("3.11") is None:
        pytest.skip("the plan picks Python 3.11 for a py3 wheel, and there is none here")
    assert result.returncode == 0, result.stderr[-3000:]
    (run_dir,) = [p for p in results.iterdir() if p.is_dir()]
    summary = json.loads((run_dir / "sweep.json").read_text())
    pins = [f"{PACKAGE}==1.1.1,torch==0.0.1", f"{PACKAGE}==1.2.0,torch==0.0.1"]
    assert list(summary["columns"]) == pins and summary["fixed"] == ["torch==0.0.1"]
    (change,) = summary["changes"]
    assert change["release"] == "1.2.0"
    assert "Held fixed in every column: `torch==0.0.1`" in (run_dir / "sweep.md").read_text()
    records = [json.loads(p.read_text()) for p in run_dir.glob("*/*.json")]
    assert {r["facts"]["frameworks"].get("torch") for r in records} == {"0.0.1"}  # the fixed pin ran in each column
    refused = subprocess.run([*argv[:argv.index("--with")], "--with", f"{PACKAGE}==1.0.0", *argv[argv.index("--with") + 2:]],
                             cwd=ROOT, capture_output=True, text=True, timeout=120, env=dict(os.environ, NO_COLOR="1"))
    assert refused.returncode == 2 and "whose releases vary" in refused.stderr


def _planted_sweeps(tmp_path: Path) -> tuple[Callable[..., subprocess.CompletedProcess[str]], Path, Path]:
    """`harness sweep ARGS` over the planted package's folder index, virtualenvs, results in
    tmp_path/results; its script and index."""
    if venvs.find_python("3.11") is None:
        pytest.skip("the plan picks Python 3.11 for a py3 wheel, and there is none here")
    wheels, index = _index(tmp_path)
    script = tmp_path / "planted.py"
    script.write_text(SCRIPT)
    common = ["--backend", "venv", "--venv-dir", str(tmp_path / "venvs"), "--wheelhouse", str(wheels),
              "--results", str(tmp_path / "results"), "--variant", "cpu"]
    env = dict(os.environ, NO_COLOR="1", COLUMNS="200")

    def harness(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "harness", "sweep", *argv, *common], cwd=ROOT, capture_output=True,
                              text=True, timeout=1200, env=env)
    return harness, script, index


def test_a_cut_sweep_resumes_where_it_stopped(tmp_path: Path) -> None:
    """A sweep whose machine went away: the cells it finished stay, --resume runs only the rest
    (its releases as planned) and writes the whole sweep, whose time it does not know (the cut part's
    was never written) and so does not claim."""
    harness, script, index = _planted_sweeps(tmp_path)
    first = harness("--package", PACKAGE, "--from", "1.1.0", "--to", "1.3.0", "--script", str(script),
                    "--index-url", index.as_uri())
    assert first.returncode == 0, first.stderr[-3000:]
    (run_dir,) = [p for p in (tmp_path / "results").iterdir() if p.is_dir()]
    cut = next(run_dir.glob(f"{PACKAGE}==1.2.0/*.json"))  # as if the machine went away before this cell
    cut.unlink()
    (run_dir / "sweep.md").unlink()
    request = json.loads((run_dir / "sweep.json").read_text())["request"]
    (run_dir / "sweep.json").write_text(json.dumps({"request": request}))  # what a cut sweep leaves
    again = harness("--resume", str(run_dir))
    assert again.returncode == 0, again.stderr[-3000:]
    ran = [line for line in again.stderr.splitlines() if " repro/planted @ " in line]
    assert len(ran) == 1 and f"{PACKAGE}==1.2.0" in ran[0], again.stderr[-2000:]  # only the cell that was cut
    assert cut.is_file()
    summary = json.loads((run_dir / "sweep.json").read_text())
    assert summary["releases"] == ["1.1.1", "1.2.0", "1.3.0"]
    (change,) = summary["changes"]
    written = (run_dir / "sweep.md").read_text()
    assert change["release"] == "1.2.0" and "whole sweep took" not in written, written
    assert "Its last part took" in written and "earlier parts' time is not recorded" in written, written


def test_a_kept_sweep_widens_to_an_older_release_and_runs_only_its_cells(tmp_path: Path) -> None:
    """--resume RUN_DIR --from OLDER: the kept columns stay as measured, only the new release's cells
    run, and the turn is judged over every column; bounds that would drop a column are refused."""
    harness, script, index = _planted_sweeps(tmp_path)
    first = harness("--package", PACKAGE, "--from", "1.2.0", "--to", "1.3.0", "--script", str(script),
                    "--index-url", index.as_uri())
    assert first.returncode == 0, first.stderr[-3000:]
    (run_dir,) = [p for p in (tmp_path / "results").iterdir() if p.is_dir()]
    assert json.loads((run_dir / "sweep.json").read_text())["changes"] == []  # both sides keep the block
    kept = sorted(run_dir.glob(f"{PACKAGE}==1.[23].0/*.json"))
    before = {p: p.read_bytes() for p in kept}

    narrowed = harness("--resume", str(run_dir), "--from", "1.3.0")
    assert narrowed.returncode == 2 and "only widens" in narrowed.stderr, narrowed.stderr[-2000:]

    wider = harness("--resume", str(run_dir), "--from", "1.1.0")
    assert wider.returncode == 0, wider.stderr[-3000:]
    lines = wider.stderr.splitlines()
    repeats = next((i for i, line in enumerate(lines) if " again (" in line), len(lines))
    ran = [line for line in lines[:repeats] if " repro/planted @ " in line]
    assert len(ran) == 1 and f"{PACKAGE}==1.1.1" in ran[0], wider.stderr[-2000:]  # only the new column
    assert {p: p.read_bytes() for p in kept} == before
    summary = json.loads((run_dir / "sweep.json").read_text())
    assert summary["releases"] == ["1.1.1", "1.2.0", "1.3.0"] and summary["from"] == "1.1.0"
    (change,) = summary["changes"]
    assert (change["before_release"], change["release"]) == ("1.1.1", "1.2.0")
    # then the turn's two sides ran twice more each (repeats/, beside the kept columns): it stands on 3 runs a side
    assert sum(" again (" in line for line in lines) == 4 and (change["standing"], change["runs_each"]) == (
        "confirmed", [3, 3]), change
    assert "changed in 1.2.0" in (run_dir / "sweep.md").read_text()


AMOUNTS = "harness-amounts"
AMOUNTS_CODE = '''_kept = []
__version__ = "{version}"


def work():
    blocks = [bytearray(32 << 20) for _ in range(16)]  # 512 MiB, every page touched
    _kept.extend(blocks[:{kept}])  # a cache keeps some: 128 MiB in 1.0, 384 MiB in 1.1
    return blocks
'''
AMOUNTS_SCRIPT = '''import gc
import harness_amounts

blocks = harness_amounts.work()
del blocks
gc.collect()
'''


def _package_index(tmp_path: Path, package: str, codes: dict[str, str]) -> tuple[Path, Path]:
    """A folder of wheels of ``package`` (version -> its module's code) and an index page listing them."""
    module = package.replace("-", "_")
    wheels, index = tmp_path / "wheels", tmp_path / "index" / package
    wheels.mkdir()
    index.mkdir(parents=True)
    names = []
    for version, code in codes.items():
        info = f"{module}-{version}.dist-info"
        files = {f"{module}/__init__.py": code,
                 f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {package}\nVersion: {version}\n",
                 f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
        files[f"{info}/RECORD"] = "".join(f"{p},,\n" for p in [*files, f"{info}/RECORD"])
        names.append(f"{module}-{version}-py3-none-any.whl")
        with zipfile.ZipFile(wheels / names[-1], "w") as archive:
            for path, text in files.items():
                archive.writestr(path, text)
    (index / "index.html").write_text("".join(f'<a href="{(wheels / n).as_uri()}">{n}</a>\n' for n in names))
    return wheels, index.parent


def _amounts_index(tmp_path: Path) -> tuple[Path, Path]:
    # each far from a line the judge draws: 128 MiB is 64 MiB over the release line (RSS's borderline band is
    # 32 MiB: 96 MiB left would be a "borderline" partial on one run and "partly held" on the next), 384 MiB
    # 64 MiB under "held" (512 MiB grown)
    kept = {"1.0.0": 4, "1.1.0": 12}
    return _package_index(tmp_path, AMOUNTS, {v: AMOUNTS_CODE.format(version=v, kept=k) for v, k in kept.items()})


def test_an_amount_that_changes_threefold_is_an_answer_once_repeats_confirm_it(tmp_path: Path) -> None:
    """Both releases 'partly held by the process', 128 MiB against 384 MiB: a candidate after one run each,
    a turn once repeated runs of both sides stand clear of each other: what a sweep does by itself."""
    if venvs.find_python("3.11") is None:
        pytest.skip("the plan picks Python 3.11 for a py3 wheel, and there is none here")
    wheels, index = _amounts_index(tmp_path)
    script = tmp_path / "amounts.py"
    script.write_text(AMOUNTS_SCRIPT)

    def sweep(results: Path, *extra: str) -> dict:
        argv = [sys.executable, "-m", "harness", "sweep", "--package", AMOUNTS, "--from", "1.0.0", "--to", "1.1.0",
                "--every", "patch", "--script", str(script), "--backend", "venv", "--venv-dir", str(tmp_path / "venvs"),
                "--index-url", index.as_uri(), "--wheelhouse", str(wheels), "--results", str(results), "--variant", "cpu",
                *extra]
        result = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=1200,
                                env=dict(os.environ, NO_COLOR="1", COLUMNS="200"))
        assert result.returncode == 0, result.stderr[-3000:]
        (run_dir,) = [p for p in results.iterdir() if p.is_dir()]
        return {"summary": json.loads((run_dir / "sweep.json").read_text()), "md": (run_dir / "sweep.md").read_text()}

    once = sweep(tmp_path / "once", "--repeat", "1")
    assert len(once["summary"]["amounts"]) == 1, once["md"]
    (candidate,) = once["summary"]["amounts"]
    assert candidate["words"].startswith("partly held") and candidate["confirmed"] is None
    assert 2.6 < candidate["after"] / candidate["before"] < 3.2  # 384 MiB against 128 MiB
    assert once["summary"]["changes"] == [] and "one run each side (asked with --repeat 1" in once["md"]
    twice = sweep(tmp_path / "twice")  # by default the sweep confirms its candidate before it answers
    (turn,) = twice["summary"]["amounts"]
    assert turn["confirmed"] is True and turn["runs"] == 3
    assert [c["kind"] for c in twice["summary"]["changes"]] == ["amount"]
    assert "a turn, 3 runs of each side clear of each other" in twice["md"]


def test_a_resumed_sweep_builds_the_column_that_failed_and_keeps_the_repeats_it_has(docker_client: Any,
                                                                                      tmp_path: Path) -> None:
    """A column whose image could not be built (its wheel not carried to an offline machine yet) is
    built and run by --resume once the wheel is there; the repeats a sweep already has are kept,
    never run twice; a column whose cells all finished is not built again."""
    wheels, index = _amounts_index(tmp_path)
    script = tmp_path / "amounts.py"
    script.write_text(AMOUNTS_SCRIPT)
    later = wheels / "harness_amounts-1.1.0-py3-none-any.whl"
    later.rename(tmp_path / later.name)
    results = tmp_path / "results"
    common = ["--backend", "docker", "--wheelhouse", str(wheels), "--offline", "--results", str(results), "--variant", "cpu"]
    env = dict(os.environ, NO_COLOR="1", COLUMNS="200")

    def harness(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "harness", "sweep", *argv, *common], cwd=ROOT, capture_output=True,
                              text=True, timeout=1200, env=env)

    first = harness("--package", AMOUNTS, "--from", "1.0.0", "--to", "1.1.0", "--every", "patch", "--script", str(script),
                    "--index-url", index.as_uri(), "--repeat", "2")
    assert first.returncode == 4, first.stderr[-3000:]
    (run_dir,) = [p for p in results.iterdir() if p.is_dir()]
    failed = json.loads(next(run_dir.glob(f"{AMOUNTS}==1.1.0/*.json")).read_text())
    assert failed["error"]["type"] == "EnvironmentFailed"
    assert "--resume RUN_DIR builds it again" in first.stderr.replace("\n", "")
    assert f"- {AMOUNTS}==1.1.0: not run (" in (run_dir / "sweep.md").read_text()

    (tmp_path / later.name).rename(later)  # the wheel arrives
    again = harness("--resume", str(run_dir))
    assert again.returncode == 0, again.stderr[-3000:]
    ran = [line for line in again.stderr.splitlines() if " repro/amounts @ " in line]
    assert len(ran) == 3 and sum(f"{AMOUNTS}==1.1.0" in line for line in ran) == 2, again.stderr[-2000:]  # 1.0.0 once
    summary = json.loads((run_dir / "sweep.json").read_text())
    (turn,) = summary["amounts"]
    assert turn["confirmed"] is True and turn["runs"] == 2
    repeats = sorted((run_dir / "repeats").iterdir())
    assert len(repeats) == 2
    written = (run_dir / "sweep.md").read_text()  # the whole sweep, not its last part: 1.1.0 ran now
    assert "not run" not in written and "in 2 parts (resumed)" in written, written

    for wheel in wheels.glob("*.whl"):  # the next machine has neither wheel: neither image can be built there
        wheel.rename(tmp_path / wheel.name)
    third = harness("--resume", str(run_dir))  # nothing left: no cell and no repeat runs again, nothing failed
    assert third.returncode == 0, third.stderr[-3000:]
    assert " repro/amounts @ " not in third.stderr and sorted((run_dir / "repeats").iterdir()) == repeats
    assert "could not be built" not in third.stderr.replace("\n", "")
    assert not [line for line in third.stderr.splitlines() if line.startswith("build: ")]  # nor tried: nothing left to run
    summary = json.loads((run_dir / "sweep.json").read_text())
    assert summary["amounts"][0]["runs"] == 2 and summary["skipped"] == {}


CALLS = "harness-calls"
CALLS_CODE = '''_seen = []
__version__ = "{version}"


def call(x):
    if {keeps}:
        _seen.append(bytes(400))  # the planted regression: 0.4 KiB kept per call, no cleanup anywhere
    return x + 1
'''
CALLS_SCRIPT = '''import harness_calls

total = 0
for i in range(100000):
    total = harness_calls.call(total)
print("calls", total)
'''


def test_a_loop_without_a_cleanup_line_keeping_0_4_kib_per_call_is_a_turn(tmp_path: Path) -> None:
    """A script that calls a library 100,000 times and cleans nothing up; from 1.1.0 the library keeps
    0.4 KiB per call (about 45 MiB in all, under what host memory judges in one run): the loop's
    iterations are measured, its growth stands clear of its noise, and the turn is at the release that changed."""
    if venvs.find_python("3.11") is None:
        pytest.skip("the plan picks Python 3.11 for a py3 wheel, and there is none here")
    wheels, index = _package_index(tmp_path, CALLS, {v: CALLS_CODE.format(version=v, keeps=v >= "1.1.0")
                                                     for v in ("1.0.0", "1.0.1", "1.1.0")})
    script = tmp_path / "calls.py"
    script.write_text(CALLS_SCRIPT)
    results = tmp_path / "results"
    argv = [sys.executable, "-m", "harness", "sweep", "--package", CALLS, "--from", "1.0.0", "--to", "1.1.0",
            "--every", "patch", "--script", str(script), "--backend", "venv", "--venv-dir", str(tmp_path / "venvs"),
            "--index-url", index.as_uri(), "--wheelhouse", str(wheels), "--results", str(results),
            "--variant", "cpu"]
    result = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=1200,
                            env=dict(os.environ, NO_COLOR="1", COLUMNS="200"))
    assert result.returncode == 0, result.stderr[-3000:]
    (run_dir,) = [p for p in results.iterdir() if p.is_dir()]
    summary = json.loads((run_dir / "sweep.json").read_text())
    # 0.4 KiB a call stands clear of the loop's noise: a leak per call, the growing side of a turn (rules 30); the
    # sweep runs both sides twice more before it answers, and the turn stands on three runs a side that agree
    # (the amount left says the same release: not a second turn)
    (turn,) = summary["changes"]
    assert (turn["before_release"], turn["release"]) == ("1.0.1", "1.1.0") and "grows 4" in turn["after"], turn
    assert summary["amounts"] == [] and (turn["standing"], turn["runs_each"]) == ("confirmed", [3, 3]), turn
    assert len([p for p in (run_dir / "repeats").iterdir() if p.is_dir()]) == 4  # 1.0.1 and 1.1.0, twice each
    record = json.loads(next((run_dir / f"{CALLS}==1.1.0").glob("repro__calls*.json")).read_text())
    assert record["loops"] == {"calls.py:4: for i in range(100000):": 100000}  # the loop's iterations were measured
    lines = [line for line in (run_dir / "sweep.md").read_text().splitlines() if line.strip()]
    assert lines[-1] == "Answer: 1 turn: `repro/calls` in 1.1.0.", lines[-3:]  # one command ends with the answer


def test_a_history_runs_its_sweeps_in_turn_and_a_stopped_one_resumes(tmp_path: Path) -> None:
    """`history` over the planted package: two sweeps (a listed release; a span), each its own sweep folder,
    history.md with what each ran and its time; with one sweep's folder gone, --resume finishes the kept
    sweep without running its cells again and runs the other anew."""
    wheels, index = _index(tmp_path)
    (tmp_path / "planted.py").write_text(SCRIPT)
    plan = tmp_path / "history.toml"
    plan.write_text(f'[[sweep]]\npackage = "{PACKAGE}"\nreleases = ["1.1.1"]\nscript = "planted.py"\nwhy = "before"\n\n'
                    f'[[sweep]]\npackage = "{PACKAGE}"\nfrom = "1.2.0"\nto = "1.3.0"\nscript = "planted.py"\nwhy = "after"\n')
    results = tmp_path / "results"

    def history(*extra: str) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable, "-m", "harness", "history", "--file", str(plan), "--backend", "venv", "--venv-dir",
                str(tmp_path / "venvs"), "--index-url", index.as_uri(), "--wheelhouse", str(wheels), "--variant", "cpu",
                "--repeat", "1", *extra]
        return subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=1200,
                              env=dict(os.environ, NO_COLOR="1", COLUMNS="200"))

    planned = history("--plan")
    assert planned.returncode == 0 and planned.stdout.splitlines() == [
        f"{PACKAGE}-1.1.1-1.1.1: 1 releases: 1.1.1", f"{PACKAGE}-1.2.0-1.3.0: 2 releases: 1.2.0, 1.3.0"]
    first = history("--results", str(results))
    (folder,) = [p for p in results.iterdir() if p.is_dir()]
    summary = json.loads((folder / "history.json").read_text())
    assert [s["sweep"] for s in summary["sweeps"]] == [f"{PACKAGE}-1.1.1-1.1.1", f"{PACKAGE}-1.2.0-1.3.0"]
    assert [s["releases"] for s in summary["sweeps"]] == [["1.1.1"], ["1.2.0", "1.3.0"]]
    assert all((folder / s["run"] / "sweep.json").is_file() for s in summary["sweeps"]), first.stderr[-3000:]
    said = (folder / "history.md").read_text()
    if venvs.find_python("3.11") is None:  # every column skipped where the plan's Python is absent
        assert "0 of 1" in said
        return
    assert first.returncode == 0, first.stderr[-3000:]
    assert f"| {PACKAGE}-1.1.1-1.1.1 | 1 of 1 | - | 0 |" in said and f"| {PACKAGE}-1.2.0-1.3.0 | 2 of 2 | - | 0 |" in said
    kept = folder / summary["sweeps"][0]["run"]
    record = next(kept.glob("*/*.json"))
    written = record.stat().st_mtime_ns
    shutil.rmtree(folder / f"{PACKAGE}-1.2.0-1.3.0")
    again = history("--resume", str(folder))
    assert again.returncode == 0, again.stderr[-3000:]
    assert record.stat().st_mtime_ns == written  # the kept sweep's cell did not run again
    resumed = json.loads((folder / "history.json").read_text())
    assert [s["releases"] for s in resumed["sweeps"]] == [["1.1.1"], ["1.2.0", "1.3.0"]]
    assert (folder / resumed["sweeps"][1]["run"] / "sweep.json").is_file()
