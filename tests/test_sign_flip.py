"""The exact paired randomization (sign-flip) test over rules (issue 67). Every expected p is counted here by hand
from the listed sign assignments, not by the code under test."""

from __future__ import annotations

import numpy as np
import pytest

from paragen.metrics.bootstrap import group_sums
from paragen.metrics.cluster_bootstrap import clustered_comparison, rule_test
from paragen.metrics.randomization import rule_sign_flip, sign_flip_test


def test_three_rules_every_assignment_listed_by_hand():
    """Differences 2, 4, -1 (hit counts; in accuracy points 1, 2, -0.5 on 200-line rules), observed sum 5. The
    8 assignments and their sums:
        + + +  5      - + +  1      + - +  -3     - - +  -7
        + + -  7      - + -  3      + - -  -1     - - -  -5
    At least 5: {5, 7} -> 2 of 8 = 0.25. At most 5: all but 7 -> 7 of 8 = 0.875. Floor 1/8."""
    result = sign_flip_test([2, 4, -1])
    assert result.statistic == 5
    assert result.p_value == 2 / 8 and result.p_value_lower == 7 / 8
    assert result.p_floor == 1 / 8 and result.method == "exhaustive" and result.assignments == 8
    assert result.seed is None


def test_four_rules_one_system_wins_all_gives_the_floor_not_zero():
    """4 of 4 rules favour B: only the observed assignment reaches the observed sum, p = 1/16 = 0.0625, however large
    the gains (the rule bootstrap gave p = 0 here). The other direction: every assignment is at most the maximum,
    16 of 16."""
    result = sign_flip_test([3, 50, 10, 7])
    assert result.p_value == 0.0625 == result.p_floor
    assert result.p_value_lower == 1.0


def test_a_tie_doubles_the_assignments_reaching_the_sum():
    """Differences 5, 0, 3: flipping the zero changes nothing. Sums: +5+3 = 8 (twice), 5-3 = 2 (twice), -5+3 = -2
    (twice), -8 (twice). At least 8: 2 of 8 = 0.25, though the floor for 3 rules is 1/8."""
    result = sign_flip_test([5, 0, 3])
    assert result.p_value == 0.25 and result.p_floor == 0.125


def test_equal_and_opposite_differences():
    """Differences 1, -1: sums 0 (++), -2... listed: (+1,-1) 0, (-1,-1) -2, (+1,+1) 2, (-1,+1) 0. At least 0: 3 of 4;
    at most 0: 3 of 4."""
    result = sign_flip_test([1, -1])
    assert (result.p_value, result.p_value_lower) == (0.75, 0.75)


def test_sixteen_rules_are_enumerated_seventeen_are_drawn():
    """16 rules all favouring B: exhaustive, p = 2^-16 exactly. 17: Monte Carlo with its seed and draws recorded;
    only assignments with every sign + reach the observed sum (probability 2^-17 each draw), so with 1,000 draws
    hits are almost surely 0 and p = (1 + 0) / (1 + 1000); the floor is max(2^-17, 1/1001) = 1/1001."""
    sixteen = sign_flip_test([1] * 16)
    assert sixteen.method == "exhaustive" and sixteen.p_value == 2.0 ** -16 and sixteen.assignments == 65536
    seventeen = sign_flip_test([1] * 17, draws=1000, seed=7)
    assert (seventeen.method, seventeen.assignments, seventeen.seed) == ("monte carlo", 1000, 7)
    assert seventeen.p_value == 1 / 1001 and seventeen.p_floor == 1 / 1001
    assert seventeen.p_value_lower == 1.0  # every draw's sum is at most 17: (1 + 1000) / 1001


def test_monte_carlo_agrees_with_enumeration_and_repeats_from_its_seed():
    """Differences 3, -1, 2, 2, -4, 1 (6 rules), observed 3. Counted by hand over the 64 assignments: the sum is
    3 + 2 * (sum of the flipped differences' negatives), so p = P(sum of flipped ≤ 0). Subsets S of {3, -1, 2, 2, -4, 1}
    with sum(S) ≤ 0: those are counted below by a few lines independent of the module. The draw (200,000
    assignments, forced with exhaustive_max 0) lands within 0.005 of it, and the same seed gives the same p."""
    d = [3, -1, 2, 2, -4, 1]
    import itertools

    exact = sum(sum(s for s, flip in zip(d, flips) if flip) <= 0
                for flips in itertools.product([False, True], repeat=6)) / 64
    assert sign_flip_test(d).p_value == exact
    drawn = sign_flip_test(d, exhaustive_max=0, draws=200_000, seed=3)
    assert abs(drawn.p_value - exact) < 0.005
    assert sign_flip_test(d, exhaustive_max=0, draws=200_000, seed=3) == drawn


def test_refusals():
    with pytest.raises(ValueError, match="one difference per rule"):
        sign_flip_test([])
    with pytest.raises(ValueError, match="whole numbers"):
        sign_flip_test([0.5, 1.0])


def test_rule_sign_flip_reports_per_rule_points_and_counts():
    """Rules of 4, 2 and 2 lines: A's hits 1, 2, 1 and B's 3, 2, 0: differences +2, 0, -1 hits = +50, 0, -50
    points. Sums over the 8 assignments of (2, 0, -1): 1, 3 (twice each, with 0 flipped or not), -3, -1 (twice):
    at least 1: {1, 1, 3, 3} = 4 of 8."""
    hits = np.array([[1.0, 3.0], [2.0, 2.0], [1.0, 0.0]])
    result = rule_sign_flip(hits, np.array([4.0, 2.0, 2.0]))
    assert result["rule_differences"] == [50.0, 0.0, -50.0]
    assert (result["favour_b"], result["favour_a"], result["ties"]) == (1, 1, 1)
    assert result["p_value"] == 0.5 and result["p_floor"] == 0.125
    assert result["sign_flip"] == {"method": "exhaustive", "assignments": 8}


def test_the_comparison_stage_takes_its_p_from_the_sign_flip_test_and_keeps_the_interval():
    """Two types, 2 rules each: type t (rules a, b: B wins both by one line), type u (rules c, d: tie, A wins by
    one). Overall differences 1, 1, 0, -1 over 4 rules: sums >= 1 among the 16 assignments, counted by hand with
    the zero doubling each: signs of (1, 1, -1) with sum >= 1: (+,+,-) 1... listed: (+,+,+) 1, (+,+,-) 3,
    (+,-,-) 1, (-,+,-) 1 -> 4 of 8, doubled = 8 of 16 = 0.5. Type t: 1 of 4 = 0.25."""
    a = np.array([0, 1, 0, 1, 1, 1, 1, 1], dtype=float)
    b = np.array([1, 1, 1, 1, 1, 1, 0, 1], dtype=float)
    groups = ["a", "a", "b", "b", "c", "c", "d", "d"]
    tags = ["t"] * 4 + ["u"] * 4
    result = clustered_comparison(a, b, tags, groups, samples=200)
    assert result["overall"]["p_value"] == 0.5 and result["overall"]["p_floor"] == 1 / 16
    assert result["by_type"]["t"]["p_value"] == 0.25 and result["by_type"]["t"]["rule_differences"] == [50.0, 50.0]
    assert result["by_type"]["u"]["rule_differences"] == [0.0, -50.0]
    assert len(result["overall"]["delta_ci95"]) == 2 and result["overall"]["samples"] == 200
    assert "p_value" in rule_test(a, b, groups, samples=200)
    hits, sizes = group_sums(np.stack([a, b], axis=1), groups)
    assert list(sizes) == [2.0, 2.0, 2.0, 2.0] and hits[:, 1].sum() == 7
