"""The paired bootstrap that resamples rules (issue 40): exact values worked out here, independently of the code.

A is the baseline and B the row tested; p is the share of resamples in which B does not score higher than A. Each
case is built so that swapping A and B, drawing the groups of A and B independently, or resampling lines instead of
groups gives a value outside the tolerance asserted.
"""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from paragen.metrics.bootstrap import paired_bootstrap
from paragen.metrics.cluster_bootstrap import clustered_comparison, paired_cluster_bootstrap

from conftest import TINY_PARAMS

# Three rules: p (2 lines: A 0, B 2 right), q (1 line: A 0, B 1), r (3 lines: A 2, B 0). A 2/6, B 3/6.
A = np.array([0.0, 0.0, 0.0, 1.0, 1.0, 0.0])
B = np.array([1.0, 1.0, 1.0, 0.0, 0.0, 0.0])
GROUPS = ["p", "p", "q", "r", "r", "r"]
SAMPLES = 20000  # standard error of p about 0.0035: the tolerance 0.015 is above 4 of them


def _draws():
    """All 27 equally likely ordered draws of 3 rules from {p, q, r}, each as (B's hits - A's hits, lines)."""
    gain, size = {"p": 2, "q": 1, "r": -2}, {"p": 2, "q": 1, "r": 3}
    return [(sum(gain[g] for g in draw), sum(size[g] for g in draw)) for draw in itertools.product("pqr", repeat=3)]


def test_exact_distribution_by_hand():
    """B is not better in 10 of 27 draws (rrr -6, qqr/qrq/rqq 0, prr x3 -2, qrr x3 -3): p = 10/27 = 0.370.
    The swapped test counts draws with gain >= 0: 20/27. Independent draws for A and B: 0.309. Resampling lines
    (6^6 draws): 0.410. The delta's 2.5th percentile is rrr's -66.67 (1/27 = 3.7 % of draws), its 97.5th 100.0
    (8 of 27 draws gain all their lines)."""
    draws = _draws()
    assert Fraction(sum(gain <= 0 for gain, _ in draws), 27) == Fraction(10, 27)
    assert Fraction(sum(gain >= 0 for gain, _ in draws), 27) == Fraction(20, 27)
    deltas = sorted(Fraction(100 * gain, size) for gain, size in draws)
    assert deltas[0] == Fraction(-200, 3) and deltas[1] > deltas[0]  # one draw (1/27 > 2.5 %) at the bottom
    assert deltas[-8:] == [100] * 8 and deltas[-9] < 100  # 8 draws (8/27 > 2.5 %) at the top
    by_group = {g: ([int(a) for a, h in zip(A, GROUPS) if h == g], [int(b) for b, h in zip(B, GROUPS) if h == g])
                for g in "pqr"}

    def accuracy(draw, k):  # k = 0: A, 1: B
        return Fraction(sum(sum(by_group[g][k]) for g in draw), sum(len(by_group[g][k]) for g in draw))

    triples = list(itertools.product("pqr", repeat=3))
    unpaired = Fraction(sum(accuracy(x, 1) <= accuracy(y, 0) for x in triples for y in triples), 27 ** 2)
    assert abs(float(unpaired) - 10 / 27) > 0.05
    lines = Fraction(sum(sum(B[i] - A[i] for i in draw) <= 0 for draw in itertools.product(range(6), repeat=6)), 6 ** 6)
    assert abs(float(lines) - 10 / 27) > 0.03


def test_the_bootstrap_matches_the_exact_distribution():
    result = paired_cluster_bootstrap(A, B, GROUPS, samples=SAMPLES, seed=7)
    assert (result.score_a, result.score_b) == pytest.approx((100 * 2 / 6, 100 * 3 / 6))
    assert result.delta == pytest.approx(100 / 6)
    assert result.p_value == pytest.approx(10 / 27, abs=0.015)  # swapped: 0.741, unpaired 0.309, lines 0.410
    assert (result.delta_low, result.delta_high) == pytest.approx((-200 / 3, 100.0))
    assert (result.samples, result.seed, result.groups, result.lines) == (SAMPLES, 7, 3, 6)
    row = result.as_dict()
    assert row["delta_ci95"] == pytest.approx([-200 / 3, 100.0]) and row["delta"] == pytest.approx(100 / 6)
    swapped = paired_cluster_bootstrap(B, A, GROUPS, samples=SAMPLES, seed=7)
    assert swapped.p_value == pytest.approx(20 / 27, abs=0.015) and swapped.delta == pytest.approx(-100 / 6)


def test_lines_of_a_rule_that_fail_together_make_the_clustered_p_much_larger():
    """4 rules of 25 lines; B right on rules 1-3, A on rules 1-2: B gains exactly on rule 3's 25 lines. Resampling
    rules, B is not better only when rule 3 is not drawn: p = (3/4)^4 = 0.316. Resampling lines, only when none of
    the 25 lines is drawn among 100: (3/4)^100 = 3e-13, so 0 of 4000 resamples: "p = 0.00025"."""
    groups = [str(rule) for rule in range(4) for _ in range(25)]
    a = np.array([1.0] * 50 + [0.0] * 50)
    b = np.array([1.0] * 75 + [0.0] * 25)
    clustered = paired_cluster_bootstrap(a, b, groups, samples=4000)
    lines = paired_bootstrap(a[:, None], b[:, None], lambda rows: 100.0 * float(rows.mean()), samples=4000)
    assert clustered.p_value == pytest.approx(0.75 ** 4, abs=0.03)
    assert lines.p_value < 0.001 and clustered.p_value > 0.25
    assert (clustered.score_a, clustered.score_b) == (lines.score_a, lines.score_b) == (50.0, 75.0)


def test_each_type_resamples_its_own_rules():
    """x->x: rules 1-3 (2 lines each), A and B equal on every line but the rules differ (2, 0 and 1 right): pairing
    gives every resample delta 0, so the interval [0, 0] (independent draws would not), and every sign assignment of
    the differences (0, 0, 0) sums to 0: p = 1. xy->x: rules 4-5, B gains rule 4's 2 lines: differences (2, 0), sums
    2, 2, -2, -2 over the 4 assignments, at least 2 in 2: p = 1/2, from these 2 rules only (all 5 rules: the three
    zeros multiply both counts by 8, p = 1/2 again)."""
    a = np.array([1, 1, 0, 0, 1, 0, 0, 0, 1, 1], dtype=float)
    b = np.array([1, 1, 0, 0, 1, 0, 1, 1, 1, 1], dtype=float)
    tags = ["x->x"] * 6 + ["xy->x"] * 4
    groups = ["1", "1", "2", "2", "3", "3", "4", "4", "5", "5"]
    result = clustered_comparison(a, b, tags, groups, samples=4000)
    assert result["unit"] == "rule" and list(result["by_type"]) == ["x->x", "xy->x"]
    same = result["by_type"]["x->x"]
    assert (same["score_a"], same["score_b"], same["delta"], same["p_value"]) == (50.0, 50.0, 0.0, 1.0)
    assert (same["delta_ci95"], same["groups"], same["lines"]) == ([0.0, 0.0], 3, 6)
    gained = result["by_type"]["xy->x"]
    interval = paired_cluster_bootstrap(a[6:], b[6:], groups[6:], samples=4000).as_dict()
    assert {k: gained[k] for k in interval if k != "p_value"} == {k: v for k, v in interval.items() if k != "p_value"}
    assert (gained["score_a"], gained["score_b"], gained["groups"]) == (50.0, 100.0, 2)
    assert gained["p_value"] == 0.5 and gained["rule_differences"] == [100.0, 0.0]
    overall = result["overall"]
    assert (overall["score_a"], overall["score_b"], overall["groups"], overall["lines"]) == (50.0, 70.0, 5, 10)
    assert overall["p_value"] == 0.5 and overall["p_floor"] == 1 / 32


def test_a_rule_with_two_types_or_misaligned_labels_is_refused():
    with pytest.raises(ValueError, match="line 3: group '1' is tagged 'b' here but 'a' earlier"):
        clustered_comparison(np.zeros(3), np.ones(3), ["a", "a", "b"], ["1", "1", "1"])
    with pytest.raises(ValueError, match="3 and 3 sentences, 2 tags, 3 group labels"):
        clustered_comparison(np.zeros(3), np.ones(3), ["a", "a"], ["1", "1", "1"])
    with pytest.raises(ValueError, match="systems differ in length"):
        paired_cluster_bootstrap(np.zeros(3), np.ones(2), ["1", "1", "1"])
    with pytest.raises(ValueError, match="empty test set"):
        paired_cluster_bootstrap(np.zeros(0), np.zeros(0), [])


def _tiny_rule_data(tmp_path: Path, tags: str = "x->x\nx->x\nx->x\nx->x\nxy->x\nxy->x\n") -> tuple[str, str]:
    """Six test lines, rules 0 and 1 of type x->x and rule 2 of type xy->x, 2 lines each; the baseline t_encdec
    is right on rule 0, the row t_copynet on rules 0 and 1."""
    from paragen.artifacts import hyp_path, prepared

    (tmp_path / "params.yaml").write_text(TINY_PARAMS.read_text())
    Path(prepared("tiny", "test", "tgt")).parent.mkdir(parents=True)
    Path(prepared("tiny", "test", "tgt")).write_text("a\nb\nc\nd\ne\nf\n")
    Path(prepared("tiny", "test", "tag")).write_text(tags)
    Path(prepared("tiny", "test", "rule")).write_text("0\n0\n1\n1\n2\n2\n")
    for experiment, lines in (("t_copynet", "a\nb\nc\nd\nx\nx\n"), ("t_encdec", "a\nb\nx\nx\nx\nx\n")):
        Path(hyp_path(experiment)).parent.mkdir(parents=True)
        Path(hyp_path(experiment)).write_text(lines)
    return prepared("tiny", "test", "tag"), prepared("tiny", "test", "rule")


def _compare(out: Path, *extra: str) -> int:
    from paragen.cli import main

    return main(["compare", "--params", "params.yaml", "--experiment", "t_copynet", "--baseline", "t_encdec",
                 "--samples", "4000", "--out", str(out), *extra])


def test_compare_adds_the_clustered_test_beside_the_line_bootstrap(tmp_path, monkeypatch, capsys):
    """By hand: 66.67 vs 33.33; per rule the row gains 0, 2 and 0 lines. Sign flips of (0, 2, 0): half the 8
    assignments keep +2, so p = 1/2 (floor 1/8); within x->x (rules 0, 1) also 1/2 (floor 1/4); xy->x has both
    wrong on both lines (delta 0, p 1). The interval still resamples rules: k of 3 draws take rule 1, P(k = 3) =
    1/27 > 2.5 %, so it ends at 100. The line bootstrap, kept under "splits", is not better only when neither line 3
    nor 4 is drawn among 6: (2/3)^6 = 0.088."""
    monkeypatch.chdir(tmp_path)
    tags, rules = _tiny_rule_data(tmp_path)
    out = tmp_path / "cmp.json"
    assert _compare(out, "--metric", "exact", "--tags", tags, "--groups", rules) == 0
    result = json.loads(out.read_text())
    line = result["splits"]["test"]
    assert set(line) == {"system_a", "system_b", "score_a", "score_b", "delta", "p_value", "samples", "seed", "on"}
    assert line["p_value"] == pytest.approx((2 / 3) ** 6, abs=0.03)
    clustered = result["clustered"]
    assert (clustered["unit"], clustered["split"], clustered["tags_file"], clustered["groups_file"]) == (
        "rule", "test", tags, rules)
    assert list(clustered["by_type"]) == ["x->x", "xy->x"]
    overall = clustered["overall"]
    assert set(overall) == {"score_a", "score_b", "delta", "delta_ci95", "p_value", "p_value_lower", "p_floor",
                            "sign_flip", "rule_differences", "favour_b", "favour_a", "ties", "samples", "seed",
                            "groups", "lines"}
    assert (round(overall["score_b"], 2), round(overall["score_a"], 2), overall["groups"], overall["samples"]) == (
        66.67, 33.33, 3, 4000)
    assert (overall["p_value"], overall["p_floor"], overall["sign_flip"]) == (
        0.5, 0.125, {"method": "exhaustive", "assignments": 8})
    assert overall["delta_ci95"] == pytest.approx([0.0, 100.0])
    assert clustered["by_type"]["x->x"]["p_value"] == 0.5 and clustered["by_type"]["x->x"]["p_floor"] == 0.25
    assert clustered["by_type"]["xy->x"]["p_value"] == 1.0 and clustered["by_type"]["xy->x"]["delta"] == 0.0
    shown = capsys.readouterr().out
    assert ("t_copynet vs t_encdec, exact match on test, all types, by rule: 66.67 vs 33.33 (+33.33), 1 of 3 rules "
            "favours t_copynet, 2 tied, sign-flip exact p = 0.5 (smallest possible with 3 rules: 0.125, with 2 tied: "
            "0.5); rule resampling: 95 % interval +0.00 to +100.00 (4000 paired resamples, too few rules for tables to "
            "show it)" in shown)
    assert "xy->x, by rule: 0.00 vs 0.00 (+0.00), 0 of 1 rule favour t_copynet, 1 tied, sign-flip exact p = 1" in shown
    assert _compare(out, "--metric", "exact") == 0 and "clustered" not in json.loads(out.read_text())


def test_compare_refuses_partial_or_misaligned_cluster_files(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    tags, rules = _tiny_rule_data(tmp_path, tags="x->x\nx->x\nx->x\nx->x\nxy->x\n")
    out = tmp_path / "cmp.json"
    assert _compare(out, "--metric", "exact", "--tags", tags) == 2
    assert "--tags and --groups: both or neither, and only with --metric exact" in capsys.readouterr().err
    assert _compare(out, "--metric", "bleu", "--tags", tags, "--groups", rules) == 2
    assert "only with --metric exact" in capsys.readouterr().err
    assert _compare(out, "--metric", "exact", "--tags", tags, "--groups", rules) == 2
    assert f"runs/t_copynet/test.hyp has 6 lines but {tags} has 5" in capsys.readouterr().err
    Path(tags).write_text("x->x\nx->x\nx->x\nxy->x\nxy->x\nxy->x\n")  # rule 1 now has two types
    assert _compare(out, "--metric", "exact", "--tags", tags, "--groups", rules) == 2
    assert "line 4: group '1' is tagged 'xy->x' here but 'x->x' earlier" in capsys.readouterr().err
    assert not out.exists()
    with pytest.raises(SystemExit):
        _compare(out, "--metric", "exact", "--tags", str(tmp_path / "missing"), "--groups", rules)
    assert "missing: no such file" in capsys.readouterr().err
