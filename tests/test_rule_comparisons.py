"""Rule data: the comparison stage compares by rule (``paragen compare --tags --groups``) and the line under the
table reports the exact sign-flip test over rules, all types then per type, each p beside the smallest p its rule
count allows, with the rule-resampling interval only from 20 rules and the per-rule differences below; the line
bootstrap is not reported. Expected lines are written out by hand from the numbers in the fixture."""

import json
import shlex

import numpy as np

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
    """A test as a file written before the sign-flip test holds it: a rule part has the bootstrap's p, no floor."""
    test = {"score_a": a, "score_b": b, "delta": b - a, "p_value": p, "samples": 200}
    if low is not None:
        test.update(delta_ci95=[low, high], groups=groups)
    return test


def _rule(a, b, p, differences, counts, floor, low, high, drawn=False):
    """A rule part as the comparison stage writes it now: the sign-flip p with its lower tail (unused here: 1 - p),
    floor and method, the per-rule differences and how many favour each row (``counts``: row, baseline, tied), and
    the rule-resampling interval."""
    method = {"method": "monte carlo", "assignments": 100000, "seed": 12345} if drawn else \
        {"method": "exhaustive", "assignments": 2 ** len(differences)}
    return {**_test(a, b, p, low, high, len(differences)), "p_value_lower": 1 - p, "p_floor": floor,
            "sign_flip": method, "rule_differences": differences, "favour_b": counts[0], "favour_a": counts[1],
            "ties": counts[2]}


OVERALL = _rule(81.44, 94.75, 0.00003, [5.0] * 20, (15, 2, 3), 1 / 100001, 4.05, 20.0, drawn=True)
"""All types, 20 rules: drawn sign assignments (20 > 16), the interval shown (20 rules reach the threshold)."""
X_X = _rule(87.0, 93.25, 0.125, [10.0, 5.0, 12.0, -2.0], (3, 1, 0), 0.0625, -2.05, 14.45)
"""x->x, 4 rules: per rule +10, +5, +12, -2 (mean 6.25 = 93.25 - 87.0), every assignment counted."""
X_0 = _rule(100.0, 100.0, 1.0, [0.0], (0, 0, 1), 0.5, 0.0, 0.0)

METHOD = ("CopyNet vs Enc-Dec (sign-flip test over the test rules, one-sided for CopyNet better than Enc-Dec: every "
          "sign assignment up to 16 rules, 100,000 seeded random ones beyond; the difference's 95 % interval from 200 "
          "resamples of the rules where there are at least 20 rules, else the per-rule differences; score of CopyNet "
          "vs Enc-Dec): exact match on test: ")
OVERALL_TEXT = ("all types: 94.8 vs 81.4 (+13.4; difference 95 % interval 4.1 to 20.0, 20 rules): 15 of 20 rules "
                "favour CopyNet, 2 favour Enc-Dec, 3 tied, p = 3.0e-05 (100,000 random sign assignments, seed 12345; "
                "smallest possible: 1.0e-05)")


def _comparison_file(tmp_path, monkeypatch, by_type: dict, overall=None):
    """CopyNet 94.75 vs Enc-Dec 81.44 over all types (``OVERALL`` unless given), ``by_type`` per type, and the line
    bootstrap (p = 0 of 200) under "splits"; written where the compare stage writes it."""
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "results/metrics/t_copynet.vs.t_encdec.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({
        "splits": {"test": _test(81.44, 94.75, 0.0)},
        "clustered": {"unit": "rule", "split": "test", "overall": overall or OVERALL, "by_type": by_type}}))
    return path


def test_the_line_reports_the_sign_flip_test_with_its_floor_and_no_line_bootstrap(tmp_path, monkeypatch):
    """CopyNet 94.75 vs Enc-Dec 81.44: shown 94.8 vs 81.4, difference of the shown numbers +13.4 (the exact 13.31
    rounded on its own would show +13.3); 20 rules: the interval 4.05 to 20.0 -> 4.1 to 20.0 (half up), and the drawn
    p 0.00003 -> 3.0e-05 beside the floor 1/100,001 -> 1.0e-05. x → x, 4 rules: no interval (below 20 rules) but the
    four per-rule differences, 3 favour CopyNet and 1 Enc-Dec, exact p = 0.125 beside 1/16 = 0.0625. x → ∅: one tied
    rule, p = 1 beside 1/2. The line bootstrap's p = 0 of 200 is not reported on rule data."""
    from paragen.pipeline.tables import table_plan
    from paragen.report.comparisons import comparison_lines

    _comparison_file(tmp_path, monkeypatch, {"x->x": X_X, "x->0": X_0})
    config = _config()
    (line,) = comparison_lines(config, table_plan(config, "copynet_synthetic"))
    assert line == (
        METHOD + OVERALL_TEXT + "; x → x: 93.3 vs 87.0 (+6.3; per rule +10.0, +5.0, +12.0, -2.0): 3 of 4 rules favour "
        "CopyNet, 1 favours Enc-Dec, exact p = 0.125 (smallest possible with 4 rules: 0.0625); x → ∅: 100.0 vs 100.0 "
        "(+0.0; per rule +0.0): 0 of 1 rule favour CopyNet, 1 tied, exact p = 1 (smallest possible with 1 rule: 0.5, "
        "with 1 tied: 1).")


def test_a_file_from_before_the_sign_flip_test_shows_no_p_for_its_rules(tmp_path, monkeypatch):
    """The committed files of before: their rule parts hold the bootstrap's p (0.03 over 20 rules, 0.12 over 4), which
    the line never prints; the 4-rule type shows no interval either, only its rule count; "no exact test" once."""
    from paragen.pipeline.tables import table_plan
    from paragen.report.comparisons import comparison_lines
    from paragen.report.rule_tests import NO_EXACT_TEST

    _comparison_file(tmp_path, monkeypatch, {"x->x": _test(87.0, 93.25, 0.12, -2.05, 14.45, 4)},
                     _test(81.44, 94.75, 0.03, 4.05, 20.0, 20))
    config = _config()
    (line,) = comparison_lines(config, table_plan(config, "copynet_synthetic"))
    assert line == (METHOD + "all types: 94.8 vs 81.4 (+13.4; difference 95 % interval 4.1 to 20.0, 20 rules); "
                    f"x → x: 93.3 vs 87.0 (+6.3; 4 rules); {NO_EXACT_TEST}.")
    assert "0.03" not in line and "0.12" not in line


def test_the_comparisons_csv_carries_every_rule_test_as_exact_numbers(tmp_path, monkeypatch):
    """The same fixture as the line above, as CSV records: all types, then each type in the file's order, and no
    line bootstrap; scores unrounded, the row's first (94.75, not the baseline's 81.44), the difference 94.75 −
    81.44 = 13.31 exactly; the interval (and its resample count) only for the 20 rules, the per-rule differences and
    counts for every part."""
    import csv
    import io

    from paragen.pipeline.tables import table_plan
    from paragen.report.comparisons import comparison_records, comparisons_csv

    path = _comparison_file(tmp_path, monkeypatch, {"x->x": X_X})
    config = _config()
    rows = list(csv.DictReader(io.StringIO(comparisons_csv(comparison_records(config, table_plan(config,
                                                                                                 "copynet_synthetic"))))))
    picked = [(r["unit"], r["scope"], r["score_row"], r["score_baseline"], r["difference"], r["ci95_low"],
               r["ci95_high"], r["samples"], r["p_value"], r["p_floor"], r["p_method"], r["favour_row"],
               r["favour_baseline"], r["ties"], r["rule_differences"], r["groups"]) for r in rows]
    assert picked == [
        ("rules", "all", "94.75", "81.44", "13.31", "4.05", "20.0", "200", "0.00003", "0.00000999990000099999",
         "sign flip, monte carlo (100000 assignments, seed 12345)", "15", "2", "3", " ".join(["5.0"] * 20), "20"),
        ("rules", "x->x", "93.25", "87.0", "6.25", "", "", "", "0.125", "0.0625", "sign flip, exhaustive (16 "
         "assignments)", "3", "1", "0", "10.0 5.0 12.0 -2.0", "4")]
    assert rows[1]["p_value_lower"] == "0.875"
    assert {(r["table"], r["row"], r["baseline"], r["metric"], r["split"]) for r in rows} == {
        ("copynet_synthetic", "CopyNet", "Enc-Dec", "exact", "test")}
    path.unlink()  # a comparison not yet run is a line saying so, not a missing line
    (missing,) = comparison_records(config, table_plan(config, "copynet_synthetic"))
    assert missing["note"].startswith("not yet run") and "score_row" not in missing


def test_one_seeds_rule_sentence_word_for_word():
    """The comparison text of one seed on rule data, every number placed by hand: the seed prefix (none without a
    seed), all types, each type under its column label or, without one, its tag."""
    from paragen.report.comparisons import rule_seed_text

    result = {"clustered": {"overall": X_X, "by_type": {"x->x": X_0, "x->0": _rule(20.0, 10.0, 1.0, [-5.0, -15.0],
                                                                                   (0, 2, 0), 0.25, -15.0, -5.0)}},
              "splits": {"test": {"p_value": 0.034, "samples": 1000}}}
    body = ("all types: 93.3 vs 87.0 (+6.3; per rule +10.0, +5.0, +12.0, -2.0): 3 of 4 rules favour A, 1 favours B, "
            "exact p = 0.125 (smallest possible with 4 rules: 0.0625); x → x: 100.0 vs 100.0 (+0.0; per rule +0.0): "
            "0 of 1 rule favour A, 1 tied, exact p = 1 (smallest possible with 1 rule: 0.5, with 1 tied: 1); x->0: "
            "10.0 vs 20.0 (-10.0; per rule -5.0, -15.0): 0 of 2 rules favour A, 2 favour B, exact p = 1 (smallest "
            "possible with 2 rules: 0.25)")
    assert rule_seed_text(result, 2, {"x->x": "x → x"}, "A", "B") == "seed 2: " + body
    assert rule_seed_text(result, None, {"x->x": "x → x"}, "A", "B") == body


def test_two_seeds_records_the_missing_seed_then_the_others_tests_with_their_seed(tmp_path, monkeypatch):
    """Seeds 1 and 2 (runs t_copynet / t_encdec and t_copynet_seed2 / t_encdec_seed2): seed 1's comparison not
    yet run, seed 2's written. The records: seed 1's "not yet run" first, then seed 2's rule tests (all types, x->x),
    each with seed 2; the CSV ends lines with a bare newline and leaves a field the record lacks empty."""
    from paragen.pipeline.tables import table_plan
    from paragen.report.comparisons import comparison_records, comparisons_csv

    path = _comparison_file(tmp_path, monkeypatch, {"x->x": X_X})
    path.rename(path.with_name("t_copynet_seed2.vs.t_encdec_seed2.json"))
    raw = load_config(TINY_PARAMS).model_dump(exclude_unset=True)
    raw["seeds"] = 2
    config = parse_config(raw, "tiny")
    records = comparison_records(config, table_plan(config, "copynet_synthetic"))
    assert [(r["seed"], r.get("unit"), r.get("scope")) for r in records] == [
        (1, None, None), (2, "rules", "all"), (2, "rules", "x->x")]
    assert records[0]["note"] == "not yet run (results/metrics/t_copynet.vs.t_encdec.json missing)"
    text = comparisons_csv(records[:1])
    assert "\r" not in text and text.count("\n") == 2
    # block empty, seed 1, then the 19 fields from split to lines empty, then the note
    assert text.splitlines()[1] == ("copynet_synthetic,CopyNet,Enc-Dec,exact,,1" + "," * 20
                                    + "not yet run (results/metrics/t_copynet.vs.t_encdec.json missing)")


def test_two_seeds_on_rule_data_each_labelled_and_tallied_by_the_overall_p(tmp_path, monkeypatch):
    """Seed 1's overall sign-flip p = 0.03 (significant), seed 2's 0.05 (not: the bar is p < 0.05), so the tally is
    1 of 2; each seed's text starts with its seed. A file whose types are not listed (by_type empty) gives the
    overall test alone."""
    from paragen.pipeline.tables import table_plan
    from paragen.report.comparisons import comparison_lines

    path = _comparison_file(tmp_path, monkeypatch, {}, {**OVERALL, "p_value": 0.03})
    second = json.loads(path.read_text())
    second["clustered"]["overall"]["p_value"] = 0.05
    path.with_name("t_copynet_seed2.vs.t_encdec_seed2.json").write_text(json.dumps(second))
    raw = load_config(TINY_PARAMS).model_dump(exclude_unset=True)
    raw["seeds"] = 2
    config = parse_config(raw, "tiny")
    (line,) = comparison_lines(config, table_plan(config, "copynet_synthetic"))
    seed_text = OVERALL_TEXT.replace("p = 3.0e-05", "p = {}")
    assert line.endswith(
        "exact match on test: seed 1: " + seed_text.format("0.03") + "; seed 2: " + seed_text.format("0.05")
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


def test_tied_rules_raise_the_smallest_p_and_the_text_says_so():
    """Differences +3, +1, 0 over 3 rules, by hand: the 8 sign assignments give sums ±3 ±1 ±0, and the observed 4 is
    reached by (+3, +1, +0) and (+3, +1, -0): p = 2 / 8 = 0.25, not the 3-rule floor 1 / 8, because the tie reads
    the same under either sign (floor 2^-(3 - 1)). Without the tie (+3, +1) it is 1 / 4 = the 2-rule floor, nothing
    added."""
    from paragen.metrics.randomization import rule_sign_flip
    from paragen.report.rule_tests import floor_with_ties, p_with_floor

    tied = {**rule_sign_flip(np.array([[0, 3], [0, 1], [2, 2]]), np.array([10, 10, 10])), "groups": 3}
    assert (tied["p_value"], tied["p_floor"], floor_with_ties(tied)) == (0.25, 0.125, 0.25)
    assert p_with_floor(tied) == "exact p = 0.25 (smallest possible with 3 rules: 0.125, with 1 tied: 0.25)"
    untied = {**rule_sign_flip(np.array([[0, 3], [0, 1]]), np.array([10, 10])), "groups": 2}
    assert p_with_floor(untied) == "exact p = 0.25 (smallest possible with 2 rules: 0.25)"


def test_many_ties_are_enumerated_not_drawn():
    """20 rules, 15 tied, differences 1..5 on the other 5 (by hand): only the all-plus signs of the 5 reach the
    observed sum 15, so p = 2^15 / 2^20 = 1 / 32 = 0.03125 exactly, and the lower tail is 1 (every sum is at most
    15). A draw over 20 signs would give only an estimate, which could fall below 1/32, the floor the ties leave."""
    from paragen.metrics.randomization import sign_flip_test

    result = sign_flip_test([1, 2, 3, 4, 5] + [0] * 15)
    assert (result.method, result.p_value, result.p_value_lower, result.p_floor) == (
        "exhaustive", 0.03125, 1.0, 2.0 ** -20)
    assert sign_flip_test([0] * 20).p_value == 1.0 and sign_flip_test([0] * 20).method == "exhaustive"
    drawn = sign_flip_test(list(range(1, 18)) + [0] * 3)  # 17 untied rules: drawn
    assert drawn.method == "monte carlo" and drawn.p_floor == 1 / 100001
