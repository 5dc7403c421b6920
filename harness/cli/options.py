"""Every command-line option, declared once: its flags, help, type and default, and the commands that take it.

A parser is derived from these declarations (``add_options``), as nox derives its parser from its
option set, so an option shared by several commands (``--setenv``, ``--with``, ``--cluster``,
``--timeout``, the build options) has one help text and one type everywhere. Argument types
reject bad values with a one-line error naming the option.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness import frameworks
from harness.definitions.config import DEFAULT_INDEX
from harness.environments.tool_sites import venv_cache
from harness.judgement import criteria

CELLS = ("matrix", "repro", "bisect", "sweep", "history")  # the commands that run cells through run_matrix
BUILDS = ("matrix", "images", "repro", "bisect", "sweep", "history")  # the commands that may build environment images


@dataclass(frozen=True)
class Option:
    flags: tuple[str, ...]
    help: str
    commands: tuple[str, ...]
    kwargs: dict[str, Any] = field(default_factory=dict)


def _param(text: str) -> tuple[str, Any]:
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    key, raw = text.split("=", 1)
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw
    return key, value


def _setenv(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key or not key.replace("_", "a").isalnum() or key[0].isdigit():
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE with a variable name, got {text!r}")
    return key, value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from exc
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {value:g}")
    return value


def _indices(text: str) -> list[int]:
    try:
        return [int(part) for part in text.split(",") if part.strip()]
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"expected GPU indices like 0,1, got {text!r}") from exc


GPU_MODES = ["gpus", "cdi", "devices", "none"]
_CRITERIA = "; ".join(f"{k}: {v}" for k, v in criteria.CRITERIA.items())
_THRESHOLDS = ", ".join(f"{k} {v:g}" for k, v in criteria.DEFAULT_THRESHOLD_MIB.items())

OPTIONS: list[Option] = [
    # positionals
    Option(("scenario",), "path to a scenario file", ("run",)),
    Option(("name",), "an example's name: its path is printed, to give repro (none: the list)", ("examples",),
           {"nargs": "?", "default": None}),
    Option(("script",), "the script from the bug report, unmodified", ("bisect",), {"type": Path}),
    Option(("script",), "the script from the bug report, unmodified (or its notebook, or the report itself: issue.md, "
           "- for stdin); its arguments after -- (`repro train.py -- "
           "--lr 1e-3`), or instead the command that launches it (`repro -- torchrun --nproc_per_node=2 train.py`)",
           ("repro",), {"type": Path, "nargs": "?"}),
    Option(("run_dir",), "a run folder (results/<run-id>)", ("report",), {"type": Path}),
    Option(("--block",), "a pasted report's code block to run, by number among its code blocks (default: the longest "
           "Python block that imports a framework)", ("repro",), {"type": int, "default": None}),
    Option(("--as",), "how a pasted report's code is replayed: as a script, or in an IPython shell as a notebook "
           "runs it (default: as the report says it ran: its prompts, or words such as IPython, Jupyter, Colab)",
           ("repro",), {"dest": "replay_as", "choices": ["script", "ipython"], "default": None}),
    Option(("--cells",), "a notebook's cells to run, by number among its code cells (`--cells 2-5`, `3`, `2-`; "
           "default: all)", ("repro",), {"default": None}),
    # what runs where
    Option(("--env",), "only this environment of matrix/environments.toml (repeatable; default: all that apply)",
           ("matrix", "images", "repro"), {"action": "append", "default": None}),
    Option(("--env",), "docker backend: the environment (matrix/environments.toml)", ("run",), {"default": None}),
    Option(("--scenario",), "only scenarios matching this glob (repeatable)", ("matrix", "sweep"),
           {"action": "append", "default": None}),
    Option(("--variant",), "image variant (default: gpu with an NVIDIA GPU, else cpu)", ("run", *BUILDS),
           {"choices": ["cpu", "gpu"], "default": None}),
    Option(("--backend",), "docker when an engine answers, else virtualenvs (auto); process: each environment's Python "
           "as found", CELLS, {"choices": ["auto", "docker", "venv", "process"], "default": "auto"}),
    Option(("--backend",), "process: an interpreter on this host (--python); docker: the image of --env", ("run",),
           {"choices": ["process", "docker"], "default": "process"}),
    Option(("--python",), "interpreter for the process backend", ("run",), {"default": sys.executable}),
    Option(("--env-name",), "name for the environment in the record", ("run",), {"default": None}),
    Option(("--image",), "an existing image as an environment (repeatable)", ("matrix", "repro"),
           {"action": "append", "default": []}),
    Option(("--interpreter",), "a local Python as an environment (repeatable)", ("matrix", "repro"),
           {"action": "append", "default": []}),
    Option(("--family",), f"API families of --image/--interpreter environments ({', '.join(frameworks.family_names())})",
           ("matrix", "repro"),
           {"action": "append", "default": []}),
    Option(("--with",), "an environment made from a pin, PKG==VER (repeatable: one environment each; join pins with "
           "commas for one environment): Python, companion pins and base are chosen from the package index",
           ("matrix", "repro"), {"dest": "with_pins", "action": "append", "default": [], "metavar": "PKG==VER"}),
    Option(("--pip",), "a package every environment gets beside its pins, PKG or PKG==VER (repeatable): what the "
           "script imports besides its framework (psutil, matplotlib); an environment that pins it keeps its own pin",
           ("matrix", "repro"), {"dest": "pip", "action": "append", "default": [], "metavar": "PKG[==VER]"}),
    Option(("--with",), "a pin every release is made with (repeatable), held fixed while the package's releases vary: "
           "the framework a library runs on (--package accelerate --with torch==2.5.1)",
           ("sweep", "bisect", "history"), {"dest": "with_pins", "action": "append", "default": [], "metavar": "PKG==VER"}),
    Option(("--index-url",), "the package index releases are looked up in (its JSON simple API, PEP 691), or a "
           "folder of wheels (a wheelhouse, for a machine that reaches no index)", CELLS,
           {"default": DEFAULT_INDEX}),
    Option(("--venv-dir",), "where the venv backend keeps virtualenvs (default: the user's cache, "
           "$XDG_CACHE_HOME/gpu-cleanup-matrix/venvs, shared by every folder a run starts in)", CELLS,
           {"type": Path, "default": venv_cache()}),
    Option(("--cluster",), "a Ray cluster: `ray` (RAY_ADDRESS, else a local Ray instance) or ray://HOST:10001; cells "
           "run as Ray tasks, doctor checks every node; needs pip install 'gpu-cleanup-matrix[ray]'", (*CELLS, "doctor"),
           {"default": None, "metavar": "ray|ray://HOST:PORT"}),
    Option(("--resume",), "finish an interrupted run: its planned cells that have no record yet (other filters "
           "ignored; a sweep widens with --from/--to)",
           ("matrix", "sweep"), {"type": Path, "default": None, "metavar": "RUN_DIR"}),
    # how cells run
    Option(("--timeout",), "seconds per cell before it is killed", ("run", *CELLS), {"type": _seconds, "default": None}),
    Option(("--param",), "scenario parameter KEY=VALUE (JSON values), for every scenario", ("run", "matrix"),
           {"type": _param, "action": "append", "default": []}),
    Option(("--setenv",), "an environment variable NAME=VALUE for every cell (repeatable), on every backend; recorded",
           ("run", *CELLS), {"type": _setenv, "action": "append", "default": []}),
    Option(("--gpu",), "GPU index to measure (NVML order)", ("run",), {"type": int, "default": 0}),
    Option(("--gpus",), "GPU indices to use, e.g. 0,1 (default: all); repro: the GPUs the script is given, as "
           "CUDA_VISIBLE_DEVICES would (default: every GPU of the host)", ("matrix", "repro"),
           {"type": _indices, "default": None}),
    Option(("--gpu-mode",), "how containers get the GPU (default: chosen from the host; `nox -s doctor` says which)",
           ("run", *CELLS), {"choices": GPU_MODES, "default": None}),
    Option(("--jobs",), "cells at once on the cpu variant (default 2), and environments made at once (default: "
           "up to 4, as cores allow)", ("matrix", "sweep", "history"), {"type": int, "default": None}),
    # bisect
    Option(("--package",), "the distribution whose releases are searched (tensorflow, jax, ...), with extras "
           "that choose the build if need be (jax[cuda13-local])", ("bisect", "sweep"),
           {"default": None}),
    Option(("--good",), "a release where the behaviour is fine", ("bisect",), {"required": True}),
    Option(("--bad",), "a release where it is not", ("bisect",), {"required": True}),
    Option(("--criterion",), f"{_CRITERIA} (default: left)", ("bisect",),
           {"choices": list(criteria.CRITERIA), "default": "left"}),
    Option(("--threshold",), f"bad when the value exceeds the good release's by more than this many MiB (default: {_THRESHOLDS})",
           ("bisect",), {"type": float, "default": None, "metavar": "MIB"}),
    Option(("--label",), "--criterion label: part of the checkpoint label to read", ("bisect",), {"default": None}),
    Option(("--pre",), "include pre-releases and dev releases", ("bisect", "sweep"), {"action": "store_true"}),
    # sweep
    Option(("--from",), "the oldest release to sweep (with --resume: widen the kept sweep down to it)", ("sweep",),
           {"dest": "low", "default": None, "metavar": "VERSION"}),
    Option(("--to",), "the newest release to sweep (with --resume: widen the kept sweep up to it)", ("sweep",),
           {"dest": "high", "default": None, "metavar": "VERSION"}),
    Option(("--every",), "minor: each minor's newest patch (default); patch: every release", ("sweep",),
           {"choices": ["minor", "patch"], "default": "minor"}),
    Option(("--repeat",), "runs of each side of a turn, the first included: the sweep runs both sides of each turn "
           "again before it answers, and names a turn only where that many runs a side agree (amounts: stand clear "
           "of the other side's); default 3; 1: every turn a candidate", ("sweep", "history"),
           {"type": int, "default": 3, "metavar": "N"}),
    Option(("--script",), "a script to run in every release (default: the catalogue's scenarios that apply)", ("sweep",),
           {"type": Path, "default": None}),
    # history
    Option(("--file",), "the history's sweeps (default: the tool's matrix/history.toml)", ("history",),
           {"type": Path, "default": None, "metavar": "TOML"}),
    Option(("--only",), "only the sweeps of this package (repeatable: torch, tensorflow, jax, cupy-cuda12x, ...)",
           ("history",), {"action": "append", "default": []}),
    Option(("--plan",), "print each sweep's releases as the index gives them, and run nothing", ("history",),
           {"action": "store_true"}),
    Option(("--resume",), "a history folder: finish each sweep begun there, start the others", ("history",),
           {"type": Path, "default": None, "metavar": "HISTORY_DIR"}),
    # building images
    Option(("--wheelhouse",), "a folder of wheels handed to every build (default: $HARNESS_WHEELHOUSE)", BUILDS,
           {"type": Path, "default": Path(os.environ["HARNESS_WHEELHOUSE"]) if os.environ.get("HARNESS_WHEELHOUSE") else None}),
    Option(("--offline",), "air-gapped builds: the wheelhouse only, no index", BUILDS, {"action": "store_true"}),
    Option(("--pull",), "pull newer base images while building (and --image images before running)", BUILDS,
           {"action": "store_true"}),
    Option(("--registry",), "pull each environment's image from this registry (host:port[/prefix]) before building it; "
           "`images --push` puts them there (for the nodes of a cluster)", BUILDS, {"default": None, "metavar": "REF"}),
    Option(("--force",), "images: rebuild even when current; cdi-spec: write even where another nvidia.com/gpu spec exists",
           ("images", "cdi-spec"), {"action": "store_true"}),
    Option(("--check",), "build each image only up to pip's resolution of its pins (nothing installed, nothing kept): "
           "a broken Dockerfile or pin shows in minutes, without downloading the CUDA stack", ("images",),
           {"action": "store_true"}),
    Option(("--push",), "push every image to --registry afterwards", ("images",), {"action": "store_true"}),
    Option(("--all-users",), "remove every container this tool labelled on the engine, whoever's run left it (and "
           "those from before runs said whose)", ("clean",), {"action": "store_true"}),
    # output
    Option(("--results",), "results folder", ("run", *CELLS), {"type": Path, "default": Path("results")}),
    Option(("--out",), "the atlas's folder", ("atlas",), {"type": Path, "default": Path("atlas")}),
    Option(("--references",), "the reference runs (default: matrix/reference)", ("atlas",), {"type": Path, "default": None}),
    Option(("--environments",), "the environments file (default: ./environments.toml when there is one, else the "
           "tool's own matrix/environments.toml); its dockerfile folders are looked up beside it, then among the tool's",
           ("run", "images", "doctor", "scenarios", "report", *CELLS), {"type": Path, "default": None, "metavar": "TOML"}),
    Option(("--json",), "print the result as JSON on stdout (run: the record; matrix, report: matrix.json)",
           ("run", "matrix", "report"), {"action": "store_true"}),
    Option(("--output",), "the folder the CDI spec is written to (one the engine reads: cdi-spec-dirs)", ("cdi-spec",),
           {"type": Path, "default": Path("/etc/cdi")}),
    Option(("--print",), "print the spec on stdout instead of writing it", ("cdi-spec",), {"action": "store_true"}),
    Option(("--compare",), "another run folder: pair its cells with this run's and highlight verdicts that changed",
           ("report",), {"type": Path, "default": None}),
]


def add_options(parser: argparse.ArgumentParser, command: str) -> None:
    """Attach every option declared for ``command``, in declaration order."""
    for option in OPTIONS:
        if command in option.commands:
            parser.add_argument(*option.flags, help=option.help, **option.kwargs)
