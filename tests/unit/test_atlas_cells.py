"""A grid cell of the atlas is one answer: measured runs that agree count once each, a copy of a run
counts once, runs that measured nothing never count as runs or as disagreement, and a turn is marked
only between measured cells."""
from __future__ import annotations

import gzip
import json

from helpers import ROOT

from harness.judgement.claims import Claim
from harness.reporting import atlas
from harness.reporting.atlas import Cell
from harness.reporting.atlas_answers import consensus, turns
from harness.reporting.atlas_html import _shortened, evidence, grid_cell


def _cell(run: str, release: str = "2.5.0", back: str = "all", word: str = "released", status: str = "ok",
          digest: str | None = None, date: str = "") -> Cell:
    return Cell(run=run, env="torch", report_key="k", technique="torch/del_gc_empty_cache", family="torch",
                framework="torch", release=release, hardware="H100", driver="580", backend="docker", image="i",
                definition_hash="d", python="3.11", cuda="12.8", status=status, back=back, word=word, date=date,
                steps=(), record_hash=digest or f"hash-{run}")


def test_two_agreeing_runs_a_copy_and_a_broken_run_are_one_green_cell_of_two_runs() -> None:
    cells = [_cell("a"), _cell("b"), _cell("a-copy", digest="hash-a"),
             _cell("broken-image", back="n/a", word="harness-error: the image has no torch", status="harness-error")]
    td = grid_cell(cells, "torch 2.5.0 · H100", None)
    assert td["classes"] == "c back-all"  # green, not striped as "runs disagree"
    assert td["word"] + td["more"] == "released (+1 run)"  # two distinct measured runs
    assert "broken-image (docker): harness-error" in td["title"]  # named in the title, as what it is


def test_a_cell_that_measured_nothing_is_grey() -> None:
    td = grid_cell([_cell("a", back="all", word="skipped: no Python 3.9 here", status="skipped")], "c", None)
    assert td["classes"] == "c back-na"


def test_a_skipped_column_between_two_releases_is_no_turn() -> None:
    row = {"torch 2.4.0 · H100": [_cell("a", "2.4.0")],
           "torch 2.5.0 · H100": [_cell("b", "2.5.0", back="n/a", word="skipped", status="skipped")],
           "torch 2.6.0 · H100": [_cell("c", "2.6.0")],
           "torch 2.7.0 · H100": [_cell("d", "2.7.0", back="none", word="held by live objects")]}
    assert turns(row, list(row)) == {"torch 2.7.0 · H100"}
    assert consensus(row["torch 2.5.0 · H100"]) is None


def test_a_release_whose_runs_disagree_on_the_turn_does_not_turn() -> None:
    """torch 1.0.1 on an H100: an agent that read no pool said "held", today's "cached", as 1.2.0 does. The
    tie shows the newest run, and a turn that one side's own runs contradict is not found either way."""
    held = _cell("old", "1.0.1", back="none", word="held by the process: 2.00 GiB", date="2026-11-27T10:18")
    cached = _cell("new", "1.0.1", back="none", word="cached in the pool: 2.00 GiB", date="2026-11-27T23:39")
    after = _cell("c", "1.2.0", back="none", word="cached in the pool: 2.00 GiB")
    held, cached, after = (Cell(**{**c.__dict__, "compared": (("none", v), None, "runs")})
                           for c, v in ((held, "held"), (cached, "cached"), (after, "cached")))
    row = {"torch 1.0.1 · H100": [held, cached], "torch 1.2.0 · H100": [after]}
    assert consensus(row["torch 1.0.1 · H100"]) is cached
    assert turns(row, list(row)) == set()
    row = {"torch 1.0.1 · H100": [held, Cell(**{**cached.__dict__, "date": "2026-11-27T01:00"})],
           "torch 1.2.0 · H100": [after]}
    assert consensus(row["torch 1.0.1 · H100"]).word.startswith("held")  # type: ignore[union-attr]
    assert turns(row, list(row)) == set()  # shown "held", but a run of 1.0.1 said what 1.2.0 says
    assert turns({"torch 1.0.1 · H100": [held], "torch 1.2.0 · H100": [after]}, list(row)) == {"torch 1.2.0 · H100"}


def test_a_turn_on_fewer_than_three_runs_a_side_is_a_candidate_and_a_cell_of_one_run_says_so() -> None:
    """790 of 970 coloured cells rested on one run and no turn had 3 on both sides: the grid, the changes page and
    atlas.json now say which turns repeats confirmed, and mark a cell of one measured run."""
    from harness.judgement.turns import candidate_words
    from harness.reporting.atlas_answers import turn_runs
    from harness.reporting.atlas_data import grid_rows

    def side(release: str, back: str, n: int) -> list[Cell]:
        return [_cell(f"{release}-{i}", release, back=back, word="released" if back == "all" else "held",
                      digest=f"{release}-{i}") for i in range(n)]

    for before, after, classes in ((3, 1, "c back-none turn candidate one-run"), (3, 3, "c back-none turn")):
        row = {"torch 2.4.0 · H100": side("2.4.0", "all", before), "torch 2.5.0 · H100": side("2.5.0", "none", after)}
        runs = turn_runs(row, list(row))
        assert runs == {"torch 2.5.0 · H100": (before, after)}
        td = grid_cell(row["torch 2.5.0 · H100"], "torch 2.5.0 · H100", runs["torch 2.5.0 · H100"])
        assert td["classes"] == classes and ("candidate turn: 3 runs before, 1 after" in td["title"]) == (after == 1)
        (after_row,) = [r for r in grid_rows({"torch/del_gc_empty_cache": row}, list(row)) if r["release"] == "2.5.0"]
        assert after_row["turn"] and after_row["turn_confirmed"] == (after == 3) and after_row["runs"] == after
    assert candidate_words((1, 3)) == "candidate turn: 1 run before, 3 after (3 each confirm it)"
    assert candidate_words((3, 4)) == "confirmed: 3 and 4 runs"


def test_words_are_cut_at_a_word_never_inside_a_number() -> None:
    text = "held by live objects: 45.70 MiB live, 138.14 GiB in the pool with the runtime's own"
    assert _shortened(text, 60) == "held by live objects: 45.70 MiB live, 138.14 GiB in the…"
    assert _shortened("released", 60) == "released"


def test_evidence_and_claims_list_releases_as_versions() -> None:
    from harness.reporting.atlas import column_sort_key
    from harness.reporting.atlas_html import _order

    cells = [_cell("a", "2.21.0"), _cell("b", "2.7.4"), _cell("c", "2.14.1")]
    assert [c.release for c in sorted(cells, key=_order(cells, "column"))] == ["2.7.4", "2.14.1", "2.21.0"]
    names = ["tensorflow 2.21.0 · H200", "tensorflow 2.7.4 · H200", "tensorflow 2.7.4 · CPU"]
    assert sorted(names, key=column_sort_key) == ["tensorflow 2.7.4 · H200", "tensorflow 2.7.4 · CPU",
                                                  "tensorflow 2.21.0 · H200"]


def test_every_claim_on_a_technique_is_shown_on_its_row() -> None:
    """Four techniques carry two claims each (tf1/session_close, jax/preallocation, ...): both are on the row."""
    from harness.judgement import claims
    from harness.reporting.atlas import grid
    from harness.reporting.atlas_html import landing

    two = [c for c in claims.load_claims() if c.scenario == "tf1/session_close"]
    assert len(two) == 2
    cell = _cell("a")
    cell = Cell(**{**cell.__dict__, "technique": "tf1/session_close", "framework": "tensorflow"})
    page = landing(grid([cell]), [cell.column], two, [cell])
    assert all(c.says.replace("'", "&#39;") in page for c in two)


def test_pages_escape_every_text_they_show() -> None:
    """A claim, a word or a run name is text: the templates escape it (a claim's "Tests:" line was not)."""
    claim = Claim(id="c", says="frees <b>all</b> & 'more'", seed="s.txt", scenario="torch/del_gc_empty_cache")
    page = evidence("torch/del_gc_empty_cache", [_cell("<run>", word="held <by> x")], "column", claim)
    assert "<b>all</b>" not in page and "frees &lt;b&gt;all&lt;/b&gt; &amp; &#39;more&#39;" in page
    assert "held &lt;by&gt; x" in page and "<run>" not in page


def test_the_datasets_grid_row_is_the_grid_cells_answer() -> None:
    """Two agreeing runs, a byte-identical copy and a broken-image run: one green row of 2 runs and
    1 not measured; a grey row for a skipped column; a turn only between measured releases."""
    from harness.reporting.atlas import grid
    from harness.reporting.atlas_data import grid_rows

    cells = [_cell("a", "2.5.0"), _cell("b", "2.5.0"), _cell("copy", "2.5.0", digest="hash-a"),
             _cell("broken", "2.5.0", back="n/a", word="harness-error", status="harness-error"),
             _cell("s", "2.6.0", back="n/a", word="skipped", status="skipped"),
             _cell("c", "2.7.0", back="none", word="held by live objects")]
    cols = ["torch 2.5.0 · H100", "torch 2.6.0 · H100", "torch 2.7.0 · H100"]
    rows = {r["release"]: r for r in grid_rows(grid(cells), cols)}
    assert (rows["2.5.0"]["colour"], rows["2.5.0"]["runs"], rows["2.5.0"]["not_measured"]) == ("green", 2, 1)
    assert (rows["2.6.0"]["colour"], rows["2.6.0"]["runs"], rows["2.6.0"]["turn"]) == ("grey", 0, False)
    assert rows["2.7.0"]["colour"] == "red" and rows["2.7.0"]["turn"] is True


def test_a_loop_that_starts_growing_is_a_turn_and_the_changes_page_names_both_sides() -> None:
    """TF's keras loop: 'cached' on 2.7.4 and 2.14.1 alike, but flat on one and growing on the other
    (the framework's own count): a turn by a sweep's rules, listed on changes.html with the release
    in between that answered nothing."""
    from dataclasses import replace

    from harness.reporting.atlas_pages import changes, changes_page

    flat = replace(_cell("a", "2.7.4", back="part", word="cached; in the loop: flat"),
                   compared=(("part", "cached"), "flat"))
    skipped = _cell("b", "2.10.0", back="n/a", word="skipped", status="skipped")
    grows = replace(_cell("c", "2.14.1", back="part", word="cached; in the loop: grows 1.01 MiB per iteration"),
                    compared=(("part", "cached"), "grows"))
    row = {"torch 2.7.4 · H100": [flat], "torch 2.10.0 · H100": [skipped], "torch 2.14.1 · H100": [grows]}
    cols = list(row)
    assert turns(row, cols) == {"torch 2.14.1 · H100"}
    assert turns({k: [replace(v[0], compared=())] for k, v in row.items()}, cols) == set()  # on the colour alone: none
    (found,) = changes({"torch/del_gc_empty_cache": row}, cols)
    assert (found.before.release, found.after.release, found.between) == ("2.7.4", "2.14.1", ("2.10.0",))
    page = changes_page([found])
    assert "2.7.4: cached; in the loop: flat (1 run)" in page and "grows 1.01 MiB" in page and ">2.10.0<" in page


def test_a_cell_page_cites_its_records_and_says_how_to_measure_it_again() -> None:
    from dataclasses import replace

    from harness.reporting.atlas_pages import cell_page

    cell = replace(_cell("h100-run", "2.5.0"), record_path="h100-run/torch/torch__del_gc_empty_cache.json.gz",
                   params='{"mib": 256}', file_sha1="5" * 40, date="2026-11-27T10:00",
                   checkpoints=({"label": "peak", "readings": {"nvml_process": 3 << 30}, "in_use": 1 << 28},))
    page = cell_page("torch/del_gc_empty_cache", "torch 2.5.0 · H100", [cell], [], "0123456789abcdef")
    ident = atlas.grid_id("torch/del_gc_empty_cache", "torch 2.5.0 · H100")
    cite = (f"grid cell {ident} (its page: c/{ident}.html): released; 1 measured run (2026-11-27) on H100, NVIDIA driver "
            "580, CUDA 12.8; judged by rules ")
    for said in ("matrix/reference/h100-run/torch/torch__del_gc_empty_cache.json.gz", "5" * 40, "{&#34;mib&#34;: 256}", cite,
                 "3.00 GiB", "256.00 MiB", "rules ", "0123456789abcdef",
                 # the environment the run used: the tool's own torch image, not any torch 2.5.0
                 "python -m harness matrix --scenario torch/del_gc_empty_cache --env torch --variant gpu --backend docker",
                 "empty_cache_step(checkpoint)"):  # the scenario's own code
        assert said in page, said
    pinned = replace(cell, env="torch==2.5.0,numpy<2", backend="venv", setenv=(("CUDA_MODULE_LOADING", "LAZY"),
                                                                             ("LD_LIBRARY_PATH", "/root/cuda11/lib")))
    page = cell_page("torch/del_gc_empty_cache", "torch 2.5.0 · H100", [pinned], [], "0123456789abcdef")
    assert ("python -m harness matrix --scenario torch/del_gc_empty_cache --with &#39;torch==2.5.0,numpy&lt;2&#39; "
            "--variant gpu --backend venv --setenv CUDA_MODULE_LOADING=LAZY<") in page  # no path of the machine it ran on
    host = replace(cell, env="host-tf-2.21.0", backend="process")
    assert "--interpreter PYTHON  # a Python with torch 2.5.0, as host-tf-2.21.0 was" in cell_page(
        "torch/del_gc_empty_cache", "torch 2.5.0 · H100", [host], [], "0123456789abcdef")


def test_a_variants_cell_page_shows_its_scenarios_code() -> None:
    """torch/loss_history_loop@as_float runs loss_history_loop.py with other parameters: its page showed no code."""
    from dataclasses import replace

    from harness.reporting.atlas_pages import cell_page

    cell = replace(_cell("h100-run", "2.5.0"), technique="torch/loss_history_loop@as_float")
    page = cell_page("torch/loss_history_loop@as_float", "torch 2.5.0 · H100", [cell], [], "0123456789abcdef")
    assert "(float(loss) if PARAMS[&#34;as_float&#34;] else loss)" in page  # the scenario file's own code


def test_a_turn_names_the_upstream_report_that_puts_a_change_there_and_releases_measured_elsewhere() -> None:
    from dataclasses import replace

    from harness.reporting import upstream
    from harness.reporting.atlas_pages import changes, changes_page

    flat = replace(_cell("a", "2.7.4", back="part", word="cached; in the loop: flat"), compared=(("part", "cached"), "flat"))
    grows = replace(_cell("c", "2.14.1", back="part", word="cached; in the loop: grows"),
                    compared=(("part", "cached"), "grows"))
    cpu = replace(_cell("d", "2.12.1"), hardware="CPU")
    row = {"torch 2.7.4 · H100": [flat], "torch 2.12.1 · CPU": [cpu], "torch 2.14.1 · H100": [grows]}
    report = upstream.Report(technique="torch/del_gc_empty_cache", url="https://github.com/o/r/issues/1", title="t",
                             says="grows from 2.11", good="2.9.2", bad="2.11.0")
    elsewhere = upstream.Report(technique="torch/other", url="https://github.com/o/r/issues/2", title="t", says="s",
                                bad="2.11.0")
    (found,) = changes({"torch/del_gc_empty_cache": row}, list(row), [report, elsewhere])
    assert found.upstream == (report,) and found.elsewhere == ("2.12.1",)
    page = changes_page([found])
    assert 'href="https://github.com/o/r/issues/1"' in page and "o/r#1" in page and "other hardware only): 2.12.1" in page
    # The rule: the turn's releases must bracket the report's first bad release (after its last good one).
    assert report.explains("torch/del_gc_empty_cache@variant", "2.10.0", "2.11.0")
    assert not report.explains("torch/del_gc_empty_cache", "2.12.0", "2.14.1")  # the change came before
    assert not report.explains("torch/del_gc_empty_cache", "2.7.4", "2.9.2")  # still good at 2.9.2
    assert elsewhere.explains("torch/other", "2.10.0", "2.11.0") and not elsewhere.explains("torch/other", "2.4", "2.10")


def test_a_technique_chart_draws_a_line_per_hardware_with_a_gap_where_a_release_was_not_measured() -> None:
    from dataclasses import replace

    from harness.reporting import atlas_chart

    def measured(release: str, left: int, slope: int | None, hardware: str = "H100") -> Cell:
        return replace(_cell(release, release, back="part", word=f"cached {left}"), hardware=hardware, slope=slope,
                       steps=({"label": "del", "verdict": "cached", "left": left},))

    row = {"torch 2.4.0 · H100": [measured("2.4.0", 2**30, 0)], "torch 2.5.0 · CPU": [measured("2.5.0", 5, 1, "CPU")],
           "torch 2.6.0 · H100": [measured("2.6.0", 2**29, 2**20)], "torch 2.7.0 · H100": [measured("2.7.0", 2**29, 2**20)]}
    found = atlas_chart.charts(row)
    assert [caption.split(",")[0] for caption, _ in found] == [
        "What the cleanup left at its deciding step", "How much each iteration of the scenario's loop added"]
    svg = found[0][1]
    assert svg.startswith("<svg") and svg.count("<circle") == 3 and ">2.5.0<" in svg  # a tick, no point: the gap
    assert "1.00 GiB" in svg and "H100" in svg and "CPU" not in svg.split("</text>")[-2]  # the CPU cell is not on a GPU chart
    assert atlas_chart.charts({"torch 2.4.0 · H100": [measured("2.4.0", 1, 0)]}) == []  # one release: no chart


def test_a_cell_that_ran_with_other_parameters_than_its_row_says_so() -> None:
    from dataclasses import replace

    from harness.reporting.atlas_html import _table

    usual = [replace(_cell(r, r), params='{"gib": 2.0}') for r in ("2.4.0", "2.5.0")]
    other = replace(_cell("2.6.0", "2.6.0"), params='{"gib": 0.25}')
    row = {f"torch {c.release} · H100": [c] for c in [*usual, other]}
    table = _table("torch · GPU", ["torch/del_gc_empty_cache"], {"torch/del_gc_empty_cache": row}, list(row), {})
    cells = table["rows"][0]["cells"]
    assert [("params" in c["classes"]) for c in cells] == [False, False, True]
    assert cells[2]["more"] == " (other parameters)" and '{"gib": 0.25}' in cells[2]["title"]


def test_a_loops_trend_survives_the_cut() -> None:
    """TF 2.7's tf_function_retracing on a CPU: 'held by the process: 194.36 MiB; in the loop: grows
    1.75 MiB per iteration (noise ±31.03 KiB)' was cut before 'grows' at 60 characters."""
    text = "held by the process: 194.36 MiB; in the loop: grows 1.75 MiB per iteration (noise ±31.03 KiB)"
    assert _shortened(text, 60) == "held by the process: 194.36 MiB; loop: grows 1.75 MiB/iteration"
    long = "held by live objects: 45.70 MiB live, 138.14 GiB in the pool; in the loop: grows 2.00 MiB per iteration"
    cut = _shortened(long, 60)
    assert cut.endswith("…; loop: grows 2.00 MiB/iteration") and cut.startswith("held by live objects")


def test_every_grid_cell_links_its_own_page_beside_its_evidence() -> None:
    from harness.reporting.atlas import grid_id

    td = grid_cell([_cell("a")], "torch 2.5.0 · H100", None)
    assert td["page"] == f"c/{grid_id('torch/del_gc_empty_cache', 'torch 2.5.0 · H100')}.html"
    assert td["target"].startswith("runs/a/report.html#cell=")  # the evidence stays one click away


def test_a_run_that_re_judges_unsupported_and_a_copied_run_count_as_no_run_and_no_claim() -> None:
    """Real records (tests/data/atlas-runs): a broken image's cells say "ok" and re-judge as unsupported,
    so they are no run of the cell; a copied run folder adds neither a run nor a claim outcome; each run's
    row names its record and the stand-in base its container ran on."""
    from pathlib import Path

    from harness.judgement.claims import load_claims
    from harness.reporting.atlas import collect, grid
    from harness.reporting.atlas_answers import answer_of
    from harness.reporting.atlas_runs import reference_runs

    runs = reference_runs(Path(__file__).parents[1] / "data" / "atlas-runs")
    assert [run.name for run in runs] == ["broken-image", "good", "good-copy"]
    cells, outcomes = collect(runs, load_claims())
    (column,) = grid(cells)["tf1/allow_growth"].items()
    broken = next(c for c in column[1] if c.run == "broken-image")
    assert broken.status == "unsupported"  # as the judge says, not the record, and why
    assert broken.word.startswith("unsupported (tensorflow registered no GPU device")
    chosen, measured, answer = answer_of(column[1])
    assert [c.run for c in measured] == ["good"] and chosen.run == "good" and answer == "none"
    decided = [o for o in outcomes if o.claim == "allow-growth-limits"]
    assert [(o.run, o.outcome) for o in decided] == [("good", "confirmed")]  # once: not again for the copy
    # the folder above the runs says their containers' base stood in for nvidia/cuda's: every cell says so
    assert all(c.stand_in.startswith("a stand-in for nvidia/cuda:12.8.1-base-ubuntu24.04") for c in cells)
    from harness.reporting.atlas_data import run_rows

    row = next(r for r in run_rows(cells) if r["run"] == "good" and r["technique"] == "tf1/allow_growth")
    import hashlib

    committed = Path(__file__).parents[1] / "data" / "atlas-runs" / row["record"]
    assert row["record"] == "good/tf-current/tf1__allow_growth.json.gz"
    assert row["record_sha1"] == hashlib.sha1(committed.read_bytes()).hexdigest()  # what sha1sum says of the file
    assert row["stand_in"] == chosen.stand_in


def test_other_hardware_only_names_releases_this_technique_measured_there_and_never_a_local_build() -> None:
    from dataclasses import replace

    from harness.reporting.atlas_pages import measured_elsewhere

    def on(hardware: str, release: str, status: str = "ok") -> tuple[str, list[Cell]]:
        cell = replace(_cell(f"{hardware}-{release}", release, status=status), hardware=hardware)
        return cell.column, [cell]

    row = dict([on("H100", "1.0.1"), on("H100", "2.11.0+cu130"), on("H200", "2.11.0"), on("H200", "2.5.0"),
                on("CPU", "2.6.0", status="skipped"), on("H200", "2.12.0")])
    # 2.11.0 is the H100's own 2.11.0+cu130; 2.6.0 measured nothing; 2.12.0 is past the turn
    assert measured_elsewhere(row, ("torch", "H100"), "1.0.1", "2.11.0+cu130") == ("2.5.0",)
    assert measured_elsewhere(row, ("torch", "H100"), "1.0.1", "1.0.1") == ()


def test_a_cell_that_never_imported_its_framework_takes_the_release_its_environment_pins() -> None:
    """CuPy 8.6.0 on a CPU host stops before its import: its column was 'cupy ?' beside 'cupy 8.6.0'; the pin
    'cupy-cuda112==8.6.0' names the framework through the registry (a copy of the real record)."""
    path = ROOT / "tests" / "data" / "records" / "cpu-oldest" / "cupy-8.6.0-cupy__pool_free_all_blocks.json.gz"
    record = json.loads(gzip.decompress(path.read_bytes()))
    assert "cupy" not in record["facts"]["frameworks"]  # it never got to import it
    assert atlas._framework(record, {}) == ("cupy", "8.6.0")


def test_the_headline_counts_framework_releases_measured_once_each() -> None:
    """It counted `torch 2.11.0` beside `2.11.0+cu130`, a release whose cells were all skipped, and a script's bare
    `python`: 62 releases where fewer were measured."""
    from dataclasses import replace

    from harness.reporting.atlas_html import release_count

    cells = [_cell("a", "2.11.0"), _cell("b", "2.11.0+cu130"), _cell("c", "2.12.1+cu130"),
             _cell("d", "2.13.0", status="skipped"), replace(_cell("e", "3.12.3"), framework="python")]
    assert release_count(cells) == 2


def test_a_column_after_releases_never_measured_on_its_hardware_is_marked() -> None:
    """torch 1.5.1 stood beside 2.2.2 with no mark for the eight minors between."""
    from harness.reporting.atlas_html import adjacent

    assert not adjacent("1.5.1", "2.2.2+cu121") and not adjacent("0.2.12", "0.4.13") and not adjacent("2.4.4", "2.7.4")
    assert adjacent("1.12.1+cu102", "1.13.1+cu117") and adjacent("1.13.1", "2.0.0") and adjacent("2.9.2", "2.9.3")
    assert adjacent("nightly", "2.0.0")  # unreadable: no mark rather than a wrong one


def test_the_claims_page_links_each_outcome_to_its_cell() -> None:
    from harness.reporting.atlas_html import claims_page

    claim = Claim(id="c1", says="del frees it", seed="seed.md", scenario="torch/del_gc_empty_cache", expect=("released",))
    outcome = atlas.ClaimOutcome("c1", "confirmed", "torch 2.5.0 · H100", "h100-run", "released")
    page = claims_page([claim], [outcome])
    assert f'<a href="c/{atlas.grid_id("torch/del_gc_empty_cache", "torch 2.5.0 · H100")}.html">torch 2.5.0 · H100</a>' in page
