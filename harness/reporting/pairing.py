"""Which columns of two runs to compare: the same environment name, else the same framework.

`report A --compare B` answers "what changed" between a driver upgrade (same names) or two
framework releases, whose columns are named for the release (host-tf-2.7.4 vs host-tf-2.21.0):
those pair by the framework their cells imported. Runs with nothing in common are refused in one
line, never reported as "nothing changed".
"""
from __future__ import annotations

from harness import frameworks
from harness.common.errors import UsageError
from harness.model.judged import ColumnPair, MatrixDoc


def column_frameworks(matrix: MatrixDoc, env: str) -> frozenset[str]:
    """The frameworks most of a column's cells imported (keras 3 pulling in JAX in a few TF cells
    does not make a TensorFlow column a JAX one)."""
    counts: dict[str, int] = {}
    cells = [row[env] for row in matrix["cells"].values() if env in row and row[env].get("framework")]
    for cell in cells:
        for name in cell["framework"]:
            if frameworks.named(name):
                counts[name] = counts.get(name, 0) + 1
    return frozenset(name for name, n in counts.items() if 2 * n >= len(cells))


def pair_columns(matrix: MatrixDoc, other: MatrixDoc) -> list[ColumnPair]:
    """[{"env", "other_env", "by"}]: columns of ``matrix`` and the ``other`` run's they answer to."""
    pairs: list[ColumnPair] = [{"env": e, "other_env": e, "by": "the same environment"} for e in matrix["environments"]
                               if e in other["environments"]]
    mine = [e for e in matrix["environments"] if e not in {p["env"] for p in pairs}]
    theirs = [e for e in other["environments"] if e not in {p["other_env"] for p in pairs}]
    their_frameworks = {o: column_frameworks(other, o) for o in theirs}
    for env in mine:  # the other column sharing the most frameworks (TF 2.21 with keras 3 imports JAX too)
        family = column_frameworks(matrix, env)
        scored = sorted(((len(family & their_frameworks[o]), -i, o) for i, o in enumerate(theirs)), reverse=True)
        if scored and scored[0][0]:
            match = scored[0][2]
            theirs.remove(match)
            common = ", ".join(sorted(family & their_frameworks[match]))
            pairs.append({"env": env, "other_env": match, "by": f"the same framework ({common})"})
    shared = set(matrix["cells"]) & set(other["cells"])
    if not pairs or not shared:
        def describe(m: MatrixDoc) -> str:
            return ", ".join(f"{e} ({'/'.join(sorted(column_frameworks(m, e))) or 'no framework'})" for e in m["environments"])
        raise UsageError(f"nothing to compare: {matrix['run']} [{describe(matrix)}] and {other['run']} [{describe(other)}] "
                         f"share {'no scenario' if not shared else 'no environment and no framework'}; compare runs of "
                         "the same scenarios and framework")
    return pairs
