"""The rule-resampling interval is a 95 % interval: its 2.5th and 97.5th percentiles, both tails (issue 41).

The existing hand-worked case (two rules, resamples AA/AB/BA/BB) has 25 % of the resamples at each extreme, so the
2.5/97.5 and the 5/95 percentiles coincide there and a 90 % interval passed for the 95 % one. Three rules of two
instances each, right 0, 1 and 2 times (rule accuracies 0, 50 and 100 %), separate them: a resample draws three
rules with replacement, and all 27 equally likely draws are enumerated below to get the exact distribution.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from paragen.metrics.bootstrap import cluster_interval

CORRECT = np.array([0.0, 0.0, 0.0, 1.0, 1.0, 1.0])  # rule A 0 of 2, rule B 1 of 2, rule C 2 of 2
GROUPS = ["A", "A", "B", "B", "C", "C"]
SAMPLES = 20000  # enough that the empirical percentiles sit on the exact atoms (margins of > 9 standard errors)


def exact_quantile(p: Fraction) -> Fraction:
    """The p-quantile (smallest value whose CDF reaches p) of a resample's accuracy, over all 27 draws of 3 rules
    from {A, B, C}: accuracy = 100 x (hits of the drawn rules) / 6, every rule having 2 instances."""
    hits = {"A": 0, "B": 1, "C": 2}
    values = sorted(Fraction(100 * sum(hits[g] for g in draw), 6) for draw in itertools.product("ABC", repeat=3))
    return next(v for i, v in enumerate(values, start=1) if Fraction(i, len(values)) >= p)


def test_exact_distribution_by_hand():
    """P(AAA) = 1/27 = 3.7 %, between 2.5 % and 5 %: the 2.5th percentile is 0, the 5th is the next value, 16.67
    (AAB in 3 orders: CDF 4/27 = 14.8 %); symmetrically the 97.5th is 100 and the 95th 83.33."""
    assert exact_quantile(Fraction(25, 1000)) == 0
    assert exact_quantile(Fraction(5, 100)) == Fraction(50, 3)
    assert exact_quantile(Fraction(95, 100)) == Fraction(250, 3)
    assert exact_quantile(Fraction(975, 1000)) == 100


def test_default_interval_is_the_95_percent_one_on_both_tails():
    """Correct (2.5th, 97.5th percentiles): (0.0, 100.0). A 90 % interval reported as 95 % (5th, 95th): (16.667,
    83.333)."""
    low, high = cluster_interval(CORRECT, GROUPS, samples=SAMPLES)
    assert low == pytest.approx(float(exact_quantile(Fraction(25, 1000))), abs=1e-9)  # 0.0, not 16.667
    assert high == pytest.approx(float(exact_quantile(Fraction(975, 1000))), abs=1e-9)  # 100.0, not 83.333
    # the same with the level spelled out, and the 90 % interval where it is asked for
    assert cluster_interval(CORRECT, GROUPS, samples=SAMPLES, level=0.95) == pytest.approx((0.0, 100.0), abs=1e-9)
    assert cluster_interval(CORRECT, GROUPS, samples=SAMPLES, level=0.90) == pytest.approx((50 / 3, 250 / 3), abs=1e-9)


def test_score_groups_reports_the_95_percent_interval(tmp_path):
    """``paragen score --groups`` (what the rule-data table's ± comes from): top1_ci95 of the tag is [0.0, 100.0];
    with a 90 % interval it would be [16.6667, 83.3333]."""
    from paragen.scoring.files import ScoreRequest, score

    (tmp_path / "ref").write_text("a\nb\nc\nd\ne\nf\n")
    (tmp_path / "hyp").write_text("z\nz\nz\nd\ne\nf\n")  # rule 1: 0 of 2 right, rule 2: 1 of 2, rule 3: 2 of 2
    (tmp_path / "tag").write_text("t\nt\nt\nt\nt\nt\n")
    (tmp_path / "rule").write_text("1\n1\n2\n2\n3\n3\n")
    result = score(ScoreRequest(metric="exact", hyp=str(tmp_path / "hyp"), refs=[str(tmp_path / "ref")],
                                tags=str(tmp_path / "tag"), groups=str(tmp_path / "rule"), bootstrap_samples=SAMPLES))
    row = result["by_tag"]["t"]
    assert row["top1"] == pytest.approx(50.0)
    assert row["top1_ci95"] == pytest.approx([0.0, 100.0], abs=1e-9)
