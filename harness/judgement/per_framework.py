"""One sentence per environment of a run: how many of its cleanups gave the memory back, the worst
one named, and what could not be judged there and why. Counted from the judge's own answers
(answer.py), so the sentence and the cells never disagree; the closing lines of `matrix` and
matrix.md say these."""
from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from harness import frameworks
from harness.common.units import human_bytes
from harness.judgement import answer
from harness.model.judged import CellSummary, Column, Glance, MatrixDoc

MAIN_PACKAGES = ("torch", "tensorflow", "jax", "cupy")  # the release a column is known by (not keras, jaxlib)


def sentences(matrix: MatrixDoc, host_only: bool) -> list[str]:
    """A sentence for each environment column of ``matrix`` (matrix.json's shape), in column order."""
    columns = matrix.get("columns") or {}
    return [sentence(env, columns.get(env) or {}, {name: row[env] for name, row in matrix["cells"].items() if env in row},
                     host_only) for env in matrix["environments"]]


def sentence(env: str, facts: Column, cells: Mapping[str, CellSummary], host_only: bool) -> str:
    said = {name: cell["glance"] for name, cell in cells.items()}
    by_back: dict[str, list[str]] = {}
    for name, glance in sorted(said.items()):
        by_back.setdefault(str(glance["back"]), []).append(name)
    measured = sum(len(by_back.get(b, [])) for b in ("all", "part", "none"))
    parts = []
    if measured:
        to = "to the OS" if host_only else "to the driver"
        parts.append(f"{len(by_back.get('all', []))} of {measured} cleanup{'s' if measured > 1 else ''} "
                     f"{answer.SHORT['all']} {to}")  # the judge's own words, as every cell says them
        for back in ("part", "none"):
            names = by_back.get(back, [])
            if names:
                worst = max(names, key=lambda n: _left(said[n]))
                parts.append(f"{len(names)} {answer.SHORT[back]} ({_short(worst)}: {_what(said[worst])})")
    borderline = by_back.get("borderline", [])
    if borderline:
        parts.append(f"{len(borderline)} {answer.SHORT['borderline']}, within the meter's noise of a line: not judged "
                     f"({', '.join(f'{_short(n)}: {_figures(said[n])}' for n in borderline[:3])}"
                     f"{', ...' if len(borderline) > 3 else ''})")
    unjudged = Counter(_why_not(said[name]) for name in by_back.get("n/a", []))
    if unjudged:
        parts.append(("not judged here: " if measured else "nothing judged here: ")
                     + ", ".join(f"{n} {why}" for why, n in sorted(unjudged.items(), key=lambda x: (-x[1], x[0]))))
    return f"{release(env, facts)}: {'; '.join(parts) or 'no cell ran'}."


def main_release(facts: Column) -> tuple[str, str] | None:
    """(package, version) a column is known by: its framework's, never a companion's (keras, jaxlib): where
    only a companion was imported (jax 0.4.35's own import failed after jaxlib's), the column has none."""
    found = dict(facts.get("frameworks") or {})
    companions = {name for framework in frameworks.all_frameworks() for name in framework.reported_with}
    main = next((name for name in MAIN_PACKAGES if name in found),
                next((name for name in found if name not in companions and name != "numpy"), None))
    return (main, str(found[main])) if main else None


def release(env: str, facts: Column) -> str:
    """'tensorflow 2.21.0 (tf-current)': the release first, the environment's name beside it."""
    known = main_release(facts)
    return f"{known[0]} {known[1]} ({env})" if known else env


def _left(glance: Glance) -> float:
    loop = glance.get("loop")
    return float(glance.get("left") or 0) + (float(loop["slope"]) * 100 if loop and loop["growing"] else 0)


def _what(glance: Glance) -> str:
    loop = glance.get("loop")
    said = [f"{human_bytes(glance.get('left'))} left"] if glance.get("left") else []
    said += [f"grows {human_bytes(loop['slope'])} per iteration"] if loop and loop["growing"] else []
    return ", ".join(said) or str(glance["word"])


def _figures(glance: Glance) -> str:
    """A borderline word's figures: '52.79 MiB left of 564.79 MiB grown, released at or under 64.00 MiB'."""
    word = str(glance["word"])
    return word.split(":", 1)[1].strip() if ":" in word else word


def _why_not(glance: Glance) -> str:
    word = str(glance["word"])
    if word == answer.NOT_SHOWN:
        return "need a GPU"
    if word.startswith("no signal"):
        return "no signal"
    return word


def _short(scenario: str) -> str:
    return scenario.split("/", 1)[-1]
