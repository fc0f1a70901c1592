"""Rule data: the comparison stage resamples rules (``paragen compare --tags --groups``) and the line under the
table reports the rule-resampling test first, per type, with the line bootstrap's p as a labelled secondary figure.
Expected lines are written out by hand from the numbers in the fixture."""

import json
import shlex

from paragen.config import load_config, parse_config

from conftest import TINY_PARAMS


def _config():
    return parse_config(load_config(TINY_PARAMS).model_dump(exclude_unset=True), "tiny")


def test_the_rule_data_comparison_stage_passes_the_types_and_rules_of_the_test_lines():
    from paragen.pipeline.plan import stages

    stage = next(s for s in stages(_config()) if s.name == "compare_t_copynet_vs_t_encdec")
    argv = shlex.split(stage.cmd)
    assert argv[argv.index("--tags") + 1] == "data/prepared/tiny/test.tag"
    assert argv[argv.index("--groups") + 1] == "data/prepared/tiny/test.rule"
    assert {"data/prepared/tiny/test.tag", "data/prepared/tiny/test.rule"} <= set(stage.deps)


def _test(a, b, p, low=None, high=None, groups=None):
    test = {"score_a": a, "score_b": b, "delta": b - a, "p_value": p, "samples": 200}
    if low is not None:
        test.update(delta_ci95=[low, high], groups=groups)
    return test


def _comparison_file(tmp_path, monkeypatch, by_type: dict):
    """CopyNet 94.75 vs Enc-Dec 81.44 over all types (rules resampled: interval 4.05 to 20.0, 20 rules, p = 0.03;
    lines resampled: p = 0 of 200), ``by_type`` per type; written where the compare stage writes it."""
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "results/metrics/t_copynet.vs.t_encdec.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({
        "splits": {"test": _test(81.44, 94.75, 0.0)},
        "clustered": {"unit": "rule", "split": "test", "overall": _test(81.44, 94.75, 0.03, 4.05, 20.0, 20),
                      "by_type": by_type}}))
    return path


def test_the_line_reports_rules_resampled_per_type_and_lines_as_secondary(tmp_path, monkeypatch):
    """CopyNet 94.75 vs Enc-Dec 81.44: shown 94.8 vs 81.4, difference of the shown numbers +13.4 (the exact 13.31
    rounded on its own would show +13.3); x → x: 93.25 vs 87.0 -> 93.3 vs 87.0 (+6.3), interval -2.05 to 14.45 ->
    -2.1 to 14.5 (half up, away from zero); the line bootstrap's p = 0 of 200 -> p < 0.005."""
    from paragen.pipeline.tables import table_plan
    from paragen.report.comparisons import comparison_lines

    _comparison_file(tmp_path, monkeypatch, {"x->x": _test(87.0, 93.25, 0.12, -2.05, 14.45, 4),
                                             "x->0": _test(100.0, 100.0, 1.0, 0.0, 0.0, 1)})
    config = _config()
    (line,) = comparison_lines(config, table_plan(config, "copynet_synthetic"))
    assert line == (
        "CopyNet vs Enc-Dec (200 resamples of the test rules, the same rules for both rows; each type's interval "
        "and p resample its own rules; score of CopyNet vs Enc-Dec): exact match on test: all types: 94.8 vs 81.4 "
        "(+13.4; difference 95 % interval 4.1 to 20.0, 20 rules), p = 0.030; x → x: 93.3 vs 87.0 (+6.3; difference "
        "95 % interval -2.1 to 14.5, 4 rules), p = 0.120; x → ∅: 100.0 vs 100.0 (+0.0; difference 95 % interval "
        "0.0 to 0.0, 1 rule), p = 1.000 [resampling lines instead: p < 0.005].")


def test_the_comparisons_csv_carries_every_test_of_the_line_as_exact_numbers(tmp_path, monkeypatch):
    """The same fixture as the line above, as CSV records: the rule tests (all types, then each type in the file's
    order) before the line bootstrap; scores unrounded, the row's first (94.75, not the baseline's 81.44), the
    difference 94.75 − 81.44 = 13.31 exactly, the interval only where rules were resampled."""
    import csv
    import io

    from paragen.pipeline.tables import table_plan
    from paragen.report.comparisons import comparison_records, comparisons_csv

    path = _comparison_file(tmp_path, monkeypatch, {"x->x": _test(87.0, 93.25, 0.12, -2.05, 14.45, 4)})
    config = _config()
    rows = list(csv.DictReader(io.StringIO(comparisons_csv(comparison_records(config, table_plan(config,
                                                                                                 "copynet_synthetic"))))))
    picked = [(r["unit"], r["scope"], r["score_row"], r["score_baseline"], r["difference"], r["ci95_low"],
               r["ci95_high"], r["p_value"], r["groups"]) for r in rows]
    assert picked == [("rules", "all", "94.75", "81.44", "13.31", "4.05", "20.0", "0.03", "20"),
                      ("rules", "x->x", "93.25", "87.0", "6.25", "-2.05", "14.45", "0.12", "4"),
                      ("sentences", "all", "94.75", "81.44", "13.31", "", "", "0.0", "")]
    assert {(r["table"], r["row"], r["baseline"], r["metric"], r["split"], r["samples"]) for r in rows} == {
        ("copynet_synthetic", "CopyNet", "Enc-Dec", "exact", "test", "200")}
    path.unlink()  # a comparison not yet run is a line saying so, not a missing line
    (missing,) = comparison_records(config, table_plan(config, "copynet_synthetic"))
    assert missing["note"].startswith("not yet run") and "score_row" not in missing


def test_one_seeds_rule_resampling_sentence_word_for_word():
    """The comparison text of one seed on rule data, every number placed by hand: the seed prefix (none without a
    seed), all types, each type under its column label or, without one, its tag, and the line bootstrap's p."""
    from paragen.report.comparisons import rule_seed_text

    def test(b, a, low, high, groups, p):
        return {"score_b": b, "score_a": a, "delta_ci95": [low, high], "groups": groups, "p_value": p,
                "samples": 1000}

    result = {"clustered": {"overall": test(93.24, 87.0, -2.0, 14.5, 4, 0.12),
                            "by_type": {"x->x": test(50.0, 50.0, 0.0, 0.0, 1, 0.5),
                                        "x->0": test(10.0, 20.0, -15.0, -5.0, 2, 0.0)}},
              "splits": {"test": {"p_value": 0.034, "samples": 1000}}}
    body = ("all types: 93.2 vs 87.0 (+6.2; difference 95 % interval -2.0 to 14.5, 4 rules), p = 0.120; "
            "x → x: 50.0 vs 50.0 (+0.0; difference 95 % interval 0.0 to 0.0, 1 rule), p = 0.500; "
            "x->0: 10.0 vs 20.0 (-10.0; difference 95 % interval -15.0 to -5.0, 2 rules), p < 0.001 "
            "[resampling lines instead: p = 0.034]")
    assert rule_seed_text(result, 2, {"x->x": "x → x"}) == "seed 2: " + body
    assert rule_seed_text(result, None, {"x->x": "x → x"}) == body


def test_two_seeds_records_the_missing_seed_then_the_others_tests_with_their_seed(tmp_path, monkeypatch):
    """Seeds 1 and 2 (runs t_copynet / t_encdec and t_copynet_seed2 / t_encdec_seed2): seed 1's comparison not
    yet run, seed 2's written. The records: seed 1's "not yet run" first, then seed 2's rule tests (all types, x->x)
    and its line bootstrap, each with seed 2; the CSV ends lines with a bare newline and leaves a field the record
    lacks empty."""
    from paragen.pipeline.tables import table_plan
    from paragen.report.comparisons import comparison_records, comparisons_csv

    path = _comparison_file(tmp_path, monkeypatch, {"x->x": _test(87.0, 93.25, 0.12, -2.05, 14.45, 4)})
    path.rename(path.with_name("t_copynet_seed2.vs.t_encdec_seed2.json"))
    raw = load_config(TINY_PARAMS).model_dump(exclude_unset=True)
    raw["seeds"] = 2
    config = parse_config(raw, "tiny")
    records = comparison_records(config, table_plan(config, "copynet_synthetic"))
    assert [(r["seed"], r.get("unit"), r.get("scope")) for r in records] == [
        (1, None, None), (2, "rules", "all"), (2, "rules", "x->x"), (2, "sentences", "all")]
    assert records[0]["note"] == "not yet run (results/metrics/t_copynet.vs.t_encdec.json missing)"
    text = comparisons_csv(records[:1])
    assert "\r" not in text and text.count("\n") == 2
    # block empty, seed 1, then the 12 fields from split to lines empty, then the note
    assert text.splitlines()[1] == ("copynet_synthetic,CopyNet,Enc-Dec,exact,,1" + "," * 13
                                    + "not yet run (results/metrics/t_copynet.vs.t_encdec.json missing)")


def test_two_seeds_on_rule_data_each_labelled_and_tallied_by_the_overall_p(tmp_path, monkeypatch):
    """Seed 1's rule test at p = 0.03 (significant), seed 2's at p = 0.05 (not: the bar is p < 0.05), so the tally is
    1 of 2; each seed's text starts with its seed. A file whose types are not listed (by_type empty) gives the
    overall test and then the line bootstrap's p, with no empty type list between them."""
    from paragen.pipeline.tables import table_plan
    from paragen.report.comparisons import comparison_lines

    path = _comparison_file(tmp_path, monkeypatch, {})
    second = json.loads(path.read_text())
    second["clustered"]["overall"]["p_value"] = 0.05
    path.with_name("t_copynet_seed2.vs.t_encdec_seed2.json").write_text(json.dumps(second))
    raw = load_config(TINY_PARAMS).model_dump(exclude_unset=True)
    raw["seeds"] = 2
    config = parse_config(raw, "tiny")
    (line,) = comparison_lines(config, table_plan(config, "copynet_synthetic"))
    seed_text = ("all types: 94.8 vs 81.4 (+13.4; difference 95 % interval 4.1 to 20.0, 20 rules), p = {} [resampling "
                 "lines instead: p < 0.005]")
    assert line.endswith(
        "exact match on test: seed 1: " + seed_text.format("0.030") + "; seed 2: " + seed_text.format("0.050")
        + ". CopyNet is better at p < 0.05 in 1 of 2 tests.")


def test_line_bootstrap_files_tally_every_split_and_seed_with_the_bar_p_below_0_05(tmp_path, monkeypatch):
    """Files without rule resampling, two splits each, two seeds: valid at p = 0.05 (not below the bar), test at
    p = 0.01, so 2 of 4 tests; the splits' texts are separated by " | "."""
    from paragen.pipeline.tables import table_plan
    from paragen.report.comparisons import comparison_lines

    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "results/metrics"
    folder.mkdir(parents=True)
    result = {"splits": {"valid": _test(80.0, 90.0, 0.05), "test": _test(81.0, 91.0, 0.01)}}
    for name in ("t_copynet.vs.t_encdec", "t_copynet_seed2.vs.t_encdec_seed2"):
        (folder / f"{name}.json").write_text(json.dumps(result))
    raw = load_config(TINY_PARAMS).model_dump(exclude_unset=True)
    raw["seeds"] = 2
    config = parse_config(raw, "tiny")
    (line,) = comparison_lines(config, table_plan(config, "copynet_synthetic"))
    assert line.endswith(". CopyNet is better at p < 0.05 in 2 of 4 tests.")
    assert "p = 0.050 (seed 2) | exact match on test: 91.0 vs 81.0 (+10.0), p = 0.010 (seed 1)" in line
