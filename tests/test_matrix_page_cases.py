"""Cases the matrix fixture of test_matrix_report.py does not reach: when a paired test is read at all (both cells
scored, not either), what a missing test file and a missing ``matrix:`` block say, the per-seed test record's
keys, and the page's single-seed wording, metric labels, p-value resolution and "- none" lists. Expected text is
written out by hand."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

import paragen.report.matrix_render as matrix_render
from paragen.report.matrix import CellResult, TaskResult, matrix_results

from test_matrix_report import _config, _exact, _runs, _test


def _scores(name: str, scores: list[float]) -> None:
    for run, score in zip(_runs(name), scores):
        _exact(run, score)


def _task_t(results):
    return {c.mechanism: c for c in next(t for t in results if t.name == "t").cells}


def test_no_matrix_block_is_named():
    with pytest.raises(ValueError, match=r"^params\.yaml has no matrix: block$"):
        matrix_results(SimpleNamespace(matrix=None))


def test_a_test_is_read_only_when_both_cells_are_scored(tmp_path, monkeypatch):
    """CopyNet scored on all three seeds, the baseline RNNSearch on two of three (seed 3's metrics missing), no
    comparison file anywhere: nothing is read, CopyNet has no tests. Reading when either cell is scored would ask
    for ``results/matrix/t_copynet.vs.mx_t_rnnsearch.json`` and fail."""
    monkeypatch.chdir(tmp_path)
    config = _config()
    _scores("t_copynet", [80, 70, 90])
    _scores("mx_t_rnnsearch", [50, 52])
    cells = _task_t(matrix_results(config))
    assert cells["RNNSearch"].status == "not run" and cells["CopyNet"].status == "scored"
    assert cells["CopyNet"].tests == [] and cells["CopyNet"].verdict != "better"


def test_a_missing_test_file_is_named_with_both_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = _config()
    _scores("t_copynet", [80, 70, 90])
    _scores("mx_t_rnnsearch", [50, 52, 54])
    with pytest.raises(FileNotFoundError) as raised:
        matrix_results(config)
    assert str(raised.value) == ("results/matrix/t_copynet.vs.mx_t_rnnsearch.json: the paired test of t_copynet "
                                 "against mx_t_rnnsearch is missing (run the pipeline's compare stage, or paragen "
                                 "compare)")


def test_each_seed_test_records_seed_runs_delta_and_p(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = _config()
    _scores("t_copynet", [80, 70, 90])
    _scores("mx_t_rnnsearch", [50, 52, 54])
    for run, base, (delta, p) in zip(_runs("t_copynet"), _runs("mx_t_rnnsearch"), [(30, 0.001), (18, 0.2),
                                                                                   (36, 0.01)]):
        _test(run, base, delta, p)
    tests = _task_t(matrix_results(config))["CopyNet"].tests
    assert [{k: t[k] for k in ("seed", "run", "baseline", "value", "baseline_value", "delta", "p_value")}
            for t in tests] == [
        {"seed": 1, "run": "t_copynet", "baseline": "mx_t_rnnsearch", "value": 80, "baseline_value": 50,
         "delta": 30, "p_value": 0.001},
        {"seed": 2, "run": "t_copynet_seed2", "baseline": "mx_t_rnnsearch_seed2", "value": 70, "baseline_value": 52,
         "delta": 18, "p_value": 0.2},
        {"seed": 3, "run": "t_copynet_seed3", "baseline": "mx_t_rnnsearch_seed3", "value": 90, "baseline_value": 54,
         "delta": 36, "p_value": 0.01}]
    assert [t["p_value_lower"] for t in tests] == [0.999, 0.8, 0.99]  # 1 - p, as the fixture writes them
    assert all(t["rules"]["p_floor"] == 1 / 100001 for t in tests)  # the file's sign-flip part rides along


def _page(monkeypatch, seeds: list[int], cells: list[CellResult], declared: set[str]) -> str:
    """The page of one task labelled "copy (rules)" scored by exact match, its reading replaced by a marker (the
    paragraph has its own tests)."""
    monkeypatch.setattr(matrix_render, "paragraph", lambda config, results, found: "READING")
    matrix = SimpleNamespace(title="Matrix", mechanisms={c.mechanism: None for c in cells}, seeds=seeds,
                             samples=1000, _declared=declared, tasks={"t": SimpleNamespace(dataset="rules")})
    task = TaskResult("t", "copy (rules)", "exact", "A", cells)
    return matrix_render.to_markdown(SimpleNamespace(matrix=matrix, datasets={"rules": None}), [task], "", [])


def test_one_seed_is_named_and_lists_say_none(monkeypatch):
    """One seed (7): "seed 7", not "mean ± sd over seeds"; the metric label is the task's label before " (";
    every cell scored and every run declared by the matrix, so both lists read "- none"."""
    cells = [CellResult("t", "A", "scored", experiment="mx_t_a", runs=["mx_t_a"], values=[50.0], rank=2),
             CellResult("t", "B", "scored", experiment="mx_t_b", runs=["mx_t_b"], values=[60.04], rank=1,
                        tests=[{"seed": 7, "run": "mx_t_b", "baseline": "mx_t_a", "value": 60.04,
                                "baseline_value": 49.96, "delta": 10.08, "p_value": 0.0}])]
    page = _page(monkeypatch, [7], cells, {"mx_t_a", "mx_t_b"})
    assert "Each cell: the task's main metric on its test set (copy: exact match (%)), seed 7; its rank" in page
    assert "mean ± sd" not in page
    # p = 0 of 1,000 resamples reads as their resolution, 1/1,000, never below it; the difference is the shown 60.0
    # minus the shown 50.0 (the exact 10.08 would round to +10.1)
    assert ("- copy (rules), B vs A: seed 7: 60.0 vs 50.0 (+10.0), p = 0.001 (0 of 1,000 resamples: the smallest p "
            "they can show)\n") in page
    assert page.endswith("## Cells that do not apply or did not run\n\n- none\n\n## Runs shared with the suites' "
                         "tables\n\nThese cells are the suites' own experiments (identical dataset, model, training "
                         "and decoding), trained once; their test results were seen before the matrix was designed "
                         "(docs/decisions.md X5):\n\n- none\n")


def test_two_seeds_give_mean_and_sd(monkeypatch):
    cells = [CellResult("t", "A", "scored", experiment="mx_t_a", runs=["r1", "r2"], values=[50.0, 52.0], rank=1),
             CellResult("t", "B", "not run", "not run yet (x missing)")]
    page = _page(monkeypatch, [3, 4], cells, set())
    assert "(copy: exact match (%)), mean ± sd over seeds 3, 4; its rank" in page
    assert "- B on copy (rules): not run: not run yet (x missing)\n" in page
    assert page.endswith("- A on copy (rules): `mx_t_a`\n")


def test_the_matrix_writes_nothing_when_a_test_is_missing(tmp_path, monkeypatch):
    """No page is half written: the error comes from reading, before any file."""
    monkeypatch.chdir(tmp_path)
    config = _config()
    _scores("t_copynet", [80, 70, 90])
    _scores("mx_t_rnnsearch", [50, 52, 54])
    with pytest.raises(FileNotFoundError):
        matrix_render.write_matrix(config)
    written = sorted(str(p) for p in Path("results").rglob("*") if p.is_file())
    assert [p for p in written if not p.startswith("results/metrics/")] == []


def test_csv_rows_end_in_newlines_and_join_metrics_and_alignment_by_spaces():
    """Two seeds: BLEU 10 and 14 (mean 12.0000), SARI 30 and 31 (30.5000); gold-link accuracy 85.4 and 86."""
    cell = CellResult("t", "A", "scored", experiment="mx_t_a", runs=["r1", "r2"], values=[50.0, 52.0], rank=1,
                      also={"bleu": [10.0, 14.0], "sari": [30.0, 31.0]}, alignment=[85.4, 86.0])
    config = SimpleNamespace(matrix=SimpleNamespace(tasks={"t": SimpleNamespace(dataset="rules")}),
                             datasets={"rules": None})
    text = matrix_render.to_csv(config, [TaskResult("t", "copy", "exact", "A", [cell])])
    assert text.encode() == (
        b"task,mechanism,status,reason,experiment,runs,metric,unit,mean,sd,values,rank,verdict,deltas,p_values,also,"
        b"attention_alignment,seeds,baseline_values,p_values_lower,p_floors,best_epochs,epochs_run,hit_epoch_cap\n"
        b"t,A,scored,,mx_t_a,r1 r2,exact,\"exact match: % of test sentences whose top-1 output equals the target, "
        b"symbol for symbol\",51.0000,1.4142,50.0000 52.0000,1,,,,bleu=12.0000 sari=30.5000,"
        b"85.4000 86.0000,,,,,,,\n")


def _sanity_config(runnable: bool) -> SimpleNamespace:
    check = SimpleNamespace(system="rd_identity", metric="bleu", fraction=0.5)
    return SimpleNamespace(matrix=SimpleNamespace(tasks={"r": SimpleNamespace(sanity=check, baseline="RNNSearch")}),
                           runnable=lambda name: runnable)


def test_a_baseline_that_did_not_run_is_not_judged_even_when_its_bound_can_run(tmp_path, monkeypatch):
    from paragen.report.matrix import sanity_void

    monkeypatch.chdir(tmp_path)
    assert sanity_void(_sanity_config(True), "r", CellResult("r", "RNNSearch", "not run")) == ""


def test_a_missing_bound_names_the_params_key_that_asks_for_it(tmp_path, monkeypatch):
    from paragen.report.matrix import sanity_void

    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError) as raised:
        sanity_void(_sanity_config(True), "r", CellResult("r", "RNNSearch", "scored", runs=["mx_r_rnnsearch"]))
    assert str(raised.value).startswith("results/metrics/rd_identity.json: the bound rd_identity of "
                                        "matrix.tasks.r.sanity is missing")
