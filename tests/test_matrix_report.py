"""The matrix's table from fixture metrics and comparison files: means, ranks with ties, the verdict rule fixed in
advance (X3, X6, X12), the void rule of a baseline that does not work (X11), the chance rate, and the files
written. Every expected number is worked out by hand in the test (docstrings give the arithmetic)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from paragen.config import parse_config
from paragen.report.matrix import chance_rate, matrix_results, ranks, verdict

from test_matrix import MATRIX, raw_config

SEEDS = [1, 2, 3]


def _matrix():
    matrix = yaml.safe_load(yaml.safe_dump(MATRIX))
    matrix["seeds"] = SEEDS
    matrix["mechanisms"]["WEAN"] = {"settings": {"architecture": "wean", "wean_score": "dot"}}
    matrix["tasks"]["r"] = {"label": "real", "dataset": "rd", "metric": "sari", "also": ["bleu"],
                            "baseline": "RNNSearch",
                            "recurrent": {"model": "rnnsearch_t", "training": "tiny", "decoding": "beam3"},
                            "skip": {"Transformer": "not here"},
                            "sanity": {"system": "rd_identity", "metric": "bleu", "fraction": 0.5}}
    return matrix


def _config(params: Path | None = None):
    raw = raw_config(_matrix())
    raw["datasets"]["rd"] = {"kind": "real", "recipe": "turk_mini", "fetch": ["turkcorpus", "asset"], "fetch_scope": "eval",
                             "splits": ["train", "valid", "test"], "segmentation": "word",
                             "evaluation": {"metrics": ["sari", "bleu"]}}
    raw["systems"] = {"rd_identity": {"dataset": "rd", "method": "identity", "vocabulary_only": True}}
    raw["data"] = ["rd"]
    if params is not None:
        params.write_text(yaml.safe_dump(raw, sort_keys=False))
    return parse_config(raw, "tiny with a matrix")


def _write(path: str, data: dict) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(data))


def _exact(run: str, score: float) -> None:
    _write(f"results/metrics/{run}.json", {"metric": "exact", "score": score})


def _test(run: str, baseline: str, delta: float, p: float, lower: float | None = None) -> None:
    """A rule-data comparison file: its sign-flip test over rules is the one read (p the cell better, ``lower`` the
    cell worse: 1 - p unless given; 20 rules, 10 each way, none tied, drawn: floor 1/100,001), not the line bootstrap's p beside it."""
    _write(f"results/matrix/{run}.vs.{baseline}.json",
           {"splits": {"test": {"delta": 99.0, "p_value": 0.5}},
            "clustered": {"overall": {"delta": delta, "p_value": p, "p_value_lower": 1 - p if lower is None else lower,
                                      "p_floor": 1 / 100001, "groups": 20, "favour_b": 10, "favour_a": 10, "ties": 0,
                                      "sign_flip": {"method": "monte carlo", "assignments": 100000, "seed": 12345}}}})


def _runs(name: str) -> list[str]:
    return [name, f"{name}_seed2", f"{name}_seed3"]


@pytest.fixture
def fixture_results(tmp_path, monkeypatch):
    """Task t (exact match): RNNSearch 50, 52, 54 (mean 52); CopyNet 80, 70, 90 (80); Enc-Dec 52 x 3 (52, tied
    with the baseline); WEAN 40, 41, 42 (41); sGate 53, 53, 53 (53). Ranks: CopyNet 1, sGate 2, Enc-Dec and
    RNNSearch share (3 + 4) / 2 = 3.5, WEAN 5.
    Task r (SARI, BLEU beside): RNNSearch SARI 30 x 3, BLEU 10, 12, 14 (mean 12); CopyNet SARI 36 x 3 (p 0.01 each);
    the in-vocabulary identity's BLEU 49.0: 12 < 0.5 x 49.0 = 24.5, so the column is void."""
    monkeypatch.chdir(tmp_path)
    config = _config(tmp_path / "params.yaml")
    for name, scores in {"mx_t_rnnsearch": [50, 52, 54], "t_copynet": [80, 70, 90], "t_encdec": [52, 52, 52],
                         "t_wean": [40, 41, 42], "mx_t_sgate": [53, 53, 53]}.items():
        for run, score in zip(_runs(name), scores):
            _exact(run, score)
    tests = {"t_copynet": [(30, 0.001), (18, 0.2), (36, 0.01)],      # 2 of 3 below 0.05, mean > 0: better
             "t_encdec": [(2, 0.3), (0, 0.99), (-2, 0.97)],          # mean 0: neither direction
             "t_wean": [(-10, 0.999), (-11, 0.96), (-12, 0.5)],      # 2 of 3 above 0.95, mean < 0: worse
             "mx_t_sgate": [(3, 0.001), (1, 0.2), (-1, 0.3)]}        # 1 of 3 below 0.05: no difference shown
    for name, per_seed in tests.items():
        for run, base, (delta, p) in zip(_runs(name), _runs("mx_t_rnnsearch"), per_seed):
            _test(run, base, delta, p)
    for name, sari, bleu in (("mx_r_rnnsearch", 30, [10, 12, 14]), ("mx_r_copynet", 36, [30, 30, 30]),
                             ("mx_r_enc_dec", 20, [5, 5, 5]), ("mx_r_wean", 31, [11, 11, 11]),
                             ("mx_r_sgate", 29, [9, 9, 9])):
        for run, b in zip(_runs(name), bleu):
            _write(f"results/metrics/{run}.json", {"sari": {"score": sari}, "bleu": {"score": b}})
    for name in ("mx_r_copynet", "mx_r_enc_dec", "mx_r_wean", "mx_r_sgate"):
        for run, base in zip(_runs(name), _runs("mx_r_rnnsearch")):
            _write(f"results/matrix/{run}.vs.{base}.json", {"splits": {"test": {"delta": 6.0, "p_value": 0.01}}})
    _write("results/metrics/rd_identity.json", {"bleu": {"score": 49.0}})
    _write("results/metrics/mx_t_rnnsearch.alignment.json", {"attention": {"accuracy": 85.4}})  # seed 1 only
    return config, {t.name: t for t in matrix_results(config)}


def test_cells_ranks_and_verdicts(fixture_results):
    _, results = fixture_results
    cells = {c.mechanism: c for c in results["t"].cells}
    assert {m: c.mean for m, c in cells.items() if c.mean is not None} == {
        "RNNSearch": 52, "CopyNet": 80, "Enc-Dec": 52, "WEAN": 41, "sGate": 53}
    assert {m: c.rank for m, c in cells.items()} == {"RNNSearch": 3.5, "CopyNet": 1, "Enc-Dec": 3.5, "WEAN": 5,
                                                      "sGate": 2, "SPM": None, "Transformer": None}
    assert {m: c.verdict for m, c in cells.items()} == {
        "RNNSearch": "baseline", "CopyNet": "better", "Enc-Dec": "no difference shown", "WEAN": "worse",
        "sGate": "no difference shown", "SPM": "", "Transformer": ""}
    assert cells["CopyNet"].sd == pytest.approx(10.0)  # sample sd of 80, 70, 90
    assert [t["p_value"] for t in cells["CopyNet"].tests] == [0.001, 0.2, 0.01]  # the clustered test, not the lines'
    assert cells["SPM"].status == "does not apply" and cells["Transformer"].reason == "no Transformer on tiny rules, " \
        "for this test"
    assert results["t"].void == ""


def test_a_column_whose_baseline_does_not_work_is_void(fixture_results):
    _, results = fixture_results
    assert results["r"].void == ("void: the baseline RNNSearch scores BLEU 12.0, below 50% of rd_identity's 49.0 on "
                                 "the same test set, so it does not work and no comparison with it is claimed")
    cells = {c.mechanism: c for c in results["r"].cells}
    # a void column is not ranked (issue 67): its scores are shown, but nothing is ordered by them
    assert cells["CopyNet"].mean == 36 and cells["CopyNet"].rank is None and cells["CopyNet"].also["bleu"] == [30] * 3


def test_rendered_files_say_void_and_list_reuse(fixture_results):
    from paragen.report.matrix_render import to_csv, to_markdown, write_matrix

    config, results = fixture_results
    markdown = to_markdown(config, list(results.values()), "")
    assert "| CopyNet | 80.0 ± 10.0 · rank 1 · better | 36.0 ± 0.0 · void |" in markdown  # a void column: no rank
    assert "| SPM | does not apply |" in markdown
    assert "- CopyNet on tiny rules: `t_copynet`" in markdown  # a suite's run, reused
    assert "real: not ranked, and its verdicts are void: the baseline RNNSearch scores BLEU 12.0" in markdown
    # tested cells outside void columns: t's CopyNet, Enc-Dec, WEAN, sGate; 1 better, 1 worse;
    # chance: 4 x 2 x (3 x 0.05^2 x 0.95 + 0.05^3) = 4 x 0.0145 = 0.058
    assert "4 cell(s) tested" in markdown and "1 better, 1 worse" in markdown and "about 0.1 verdict(s)" in markdown
    rows = to_csv(config, list(results.values())).splitlines()
    assert rows[0].startswith("task,mechanism,status,reason,experiment,runs,metric,unit,mean,sd,values,rank,verdict")
    wean = next(row for row in rows if row.startswith("t,WEAN,"))
    # deltas: 40 - 50, 41 - 52, 42 - 54 exactly; p-values as the files hold them; the p of being worse 1 - p
    assert wean.startswith("t,WEAN,scored,,t_wean,t_wean t_wean_seed2 t_wean_seed3,exact,\"exact match: % of test "
                           "sentences whose top-1 output equals the target, symbol for symbol\",41.0000,1.0000,"
                           "40.0000 41.0000 42.0000,5,worse,-10.0 -11.0 -12.0,0.999 0.96 0.5,")
    assert wean.endswith(",1 2 3,50.0000 52.0000 54.0000,0.0010000000000000009 0.040000000000000036 0.5,"
                         "0.00000999990000099999 0.00000999990000099999 0.00000999990000099999,,,")
    assert next(row for row in rows if row.startswith("t,RNNSearch,")).endswith(",85.4000,,,,,,,")
    written = write_matrix(config)
    from PIL import Image

    assert Image.open(written[-1]).size[0] == 1300  # page width: 6.5 in at 200 dpi


def test_verdict_rule_and_chance_rate_by_hand():
    assert verdict([{"delta": 1, "p_value": 0.04}], 1) == "better"
    assert verdict([{"delta": -1, "p_value": 0.96}], 1) == "worse"
    assert verdict([{"delta": -1, "p_value": 0.94}], 1) == "no difference shown"
    # 2 of 3 needed: one significant seed is not enough even with a positive mean
    assert verdict([{"delta": 5, "p_value": 0.01}, {"delta": 1, "p_value": 0.3}, {"delta": 1, "p_value": 0.2}],
                   2) == "no difference shown"
    assert chance_rate(1, 1) == pytest.approx(0.10)
    assert chance_rate(3, 2) == pytest.approx(2 * (3 * 0.05 ** 2 * 0.95 + 0.05 ** 3))
    assert ranks({"a": 1.0, "b": 3.0, "c": 3.001, "d": 2.0}) == {"b": 1.5, "c": 1.5, "d": 3, "a": 4}


def test_check_tables_rebuilds_the_matrix_and_names_a_hand_edit(fixture_results, tmp_path):
    """The matrix keeps what it read outside results/ (runs' logs and sessions) in results/provenance/matrix/, so
    `paragen check-tables` rebuilds it from committed files alone; an edited cell is named."""
    from paragen.report.matrix_render import write_matrix
    from paragen.report.staleness import check_tables

    config, _ = fixture_results
    Path("runs/t_copynet").mkdir(parents=True)
    Path("runs/t_copynet/train_log.csv").write_text("epoch,train_loss,valid_loss,valid_metric,wall_time_s\n"
                                                    "1,2.0,2.1,50.0,120.0\n")
    Path("runs/t_copynet/sessions.json").write_text('[{"first_epoch": 1, "device": "a test CPU"}]')
    write_matrix(config, figures=False)
    assert "Trained on a test CPU: 2 min of training over 1 run(s)." in Path("results/tables/matrix.md").read_text()
    assert Path("results/provenance/matrix/files/runs/t_copynet/train_log.csv").is_file()
    import shutil

    shutil.rmtree("runs")  # a fresh clone has no runs/: the rebuild reads the kept copies
    stale, checked = check_tables(tmp_path)
    assert checked == ["matrix"] and stale == []
    table = Path("results/tables/matrix.md")
    table.write_text(table.read_text().replace("80.0 ± 10.0", "81.0 ± 10.0"))
    stale, _ = check_tables(tmp_path)
    assert [s.path for s in stale] == ["results/tables/matrix.md"]
