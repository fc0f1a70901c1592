"""The bootstraps' documented defaults (1,000 samples, seed 12345, a 95 % interval), the level and seed passed through
every layer, and the percentile interval's exact tails.

Written for the survivors of the metrics group's mutation run (docs/mutation.md). Expected values come from a
few lines of numpy in each test (the resampling written out again, with the documented seed), never from the code
under test.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from paragen.metrics.bootstrap import (BootstrapResult, cluster_interval, group_sums, paired_bootstrap,
                                       percentile_interval)
from paragen.metrics.cluster_bootstrap import clustered_comparison, paired_cluster_bootstrap

# Twelve rules of 1..12 lines; rule r is right on r // 2 of its lines (accuracy spread over many values, so that
# another seed or sample count moves the interval's interpolated ends).
SIZES = np.arange(1, 13)
GROUPS = [f"r{r}" for r, size in enumerate(SIZES) for _ in range(size)]
CORRECT = np.concatenate([np.r_[np.ones(r // 2), np.zeros(size - r // 2)] for r, size in enumerate(SIZES)])


def _mean(rows: np.ndarray) -> float:
    return float(rows.mean())


def test_paired_bootstrap_defaults_are_1000_samples_with_seed_12345():
    """Line resampling written out: 1,000 resamples of n row indices from ``default_rng(12345)``, B not better where
    its mean is not above A's. Another seed or 1,001 samples gives another p-value (or another recorded count)."""
    rng = np.random.default_rng(7)
    a, b = rng.random((40, 1)), rng.random((40, 1)) + 0.05
    expected_rng, not_better = np.random.default_rng(12345), 0
    for _ in range(1000):
        rows = expected_rng.integers(0, 40, size=40)
        not_better += b[rows].mean() <= a[rows].mean()
    result = paired_bootstrap(a, b, _mean)
    assert 0.0 < not_better / 1000 < 1.0  # an informative case: neither system wins every resample
    assert result == BootstrapResult(a.mean(), b.mean(), not_better / 1000, 1000, 12345)


def test_bootstrap_result_delta_is_b_minus_a():
    result = BootstrapResult(score_a=30.0, score_b=32.5, p_value=0.1, samples=1000, seed=12345)
    assert result.as_dict() == {"score_a": 30.0, "score_b": 32.5, "delta": 2.5, "p_value": 0.1, "samples": 1000,
                                "seed": 12345}


def test_empty_and_misaligned_inputs_are_refused_by_name():
    with pytest.raises(ValueError, match=r"^cannot bootstrap an empty test set$"):
        paired_bootstrap(np.zeros((0, 1)), np.zeros((0, 1)), _mean)
    with pytest.raises(ValueError, match=r"^cannot bootstrap an empty test set$"):
        group_sums(np.zeros(0), [])
    with pytest.raises(ValueError, match=r"^3 sentences but 2 group labels$"):
        group_sums(np.zeros(3), ["a", "b"])


def test_percentile_interval_tails_on_a_known_sample():
    """numpy's linear percentile of 0, 1, ..., 1000 at p is 10 p exactly: the 95 % interval is (25, 975) and the
    90 % one (50, 950). A tail of 101 (1 - level)/2 gives (25.25, 974.75); an upper end of 101 - tail gives 985."""
    values = np.arange(1001.0)
    assert percentile_interval(values, 0.95) == pytest.approx((25.0, 975.0), abs=1e-9)
    assert percentile_interval(values, 0.90) == pytest.approx((50.0, 950.0), abs=1e-9)


def _rule_resamples(seed: int, samples: int) -> np.ndarray:
    """[samples, 12] rule indices as the documented resampling draws them (rules numbered by first appearance)."""
    return np.random.default_rng(seed).integers(0, len(SIZES), size=(samples, len(SIZES)))


def test_cluster_interval_defaults_by_an_independent_resampling():
    hits = np.array([r // 2 for r in range(len(SIZES))], dtype=float)
    drawn = _rule_resamples(12345, 1000)
    accuracy = 100.0 * hits[drawn].sum(axis=1) / SIZES[drawn].sum(axis=1)
    expected = tuple(np.percentile(accuracy, [2.5, 97.5]))
    assert cluster_interval(CORRECT, GROUPS) == pytest.approx(expected, abs=1e-12)
    assert cluster_interval(CORRECT, GROUPS, seed=12346) != pytest.approx(expected, abs=1e-12)  # the case can tell


def _expected_rule_comparison(b: np.ndarray, level: float) -> tuple[list[float], float]:
    """The documented rule bootstrap of B against CORRECT written out: per rule the hits of each, 1,000 resamples of
    the 12 rules (seed 12345), B's extra hits over the drawn lines; the central ``level`` interval (%) and the
    share of resamples where B gains nothing."""
    starts = np.r_[0, np.cumsum(SIZES)[:-1]]
    hits_a, hits_b = np.add.reduceat(CORRECT, starts), np.add.reduceat(b, starts)
    drawn = _rule_resamples(12345, 1000)
    gain = (hits_b - hits_a)[drawn].sum(axis=1)
    tail = 50.0 * (1.0 - level)
    return list(np.percentile(100.0 * gain / SIZES[drawn].sum(axis=1), [tail, 100.0 - tail])), float(np.mean(gain <= 0))


def test_paired_cluster_bootstrap_defaults_and_level():
    """B right on every line of the even rules. The interval's key names the level it was computed at (0.9 ->
    ``delta_ci90``), so a level dropped on the way to the result shows as ``delta_ci95``."""
    b = np.concatenate([np.full(size, float(r % 2 == 0)) for r, size in enumerate(SIZES)])
    interval, p_value = _expected_rule_comparison(b, 0.95)
    result = paired_cluster_bootstrap(CORRECT, b, GROUPS)
    assert (result.samples, result.seed, result.level, result.groups, result.lines) == (1000, 12345, 0.95, 12, 78)
    assert [result.delta_low, result.delta_high] == pytest.approx(interval)
    assert result.p_value == pytest.approx(p_value)

    ninety = paired_cluster_bootstrap(CORRECT, b, GROUPS, level=0.9)
    assert ninety.level == 0.9
    assert ninety.as_dict()["delta_ci90"] == pytest.approx(_expected_rule_comparison(b, 0.9)[0])


def test_clustered_comparison_passes_seed_samples_and_level_to_every_part():
    tags = ["odd" if int(group[1:]) % 2 else "even" for group in GROUPS]
    b = 1.0 - CORRECT
    result = clustered_comparison(CORRECT, b, tags, GROUPS, level=0.9)
    for part in (result["overall"], *result["by_type"].values()):
        assert (part["samples"], part["seed"]) == (1000, 12345)
        assert "delta_ci90" in part and "delta_ci95" not in part
    interval, _ = _expected_rule_comparison(b, 0.9)
    assert result["overall"]["delta_ci90"] == pytest.approx(interval)
    # its p is the sign-flip test's over the 12 rules, counted here over all 4,096 sign assignments
    starts = np.r_[0, np.cumsum(SIZES)[:-1]]
    gain = (np.add.reduceat(b, starts) - np.add.reduceat(CORRECT, starts)).astype(int)
    signs = np.array(list(itertools.product([1, -1], repeat=len(SIZES))))
    assert result["overall"]["p_value"] == float(np.mean(signs @ gain >= gain.sum()))


def test_clustered_comparison_refusals_are_whole_sentences():
    with pytest.raises(ValueError, match=r"^3 and 3 sentences, 2 tags, 3 group labels: one per line each$"):
        clustered_comparison(np.zeros(3), np.ones(3), ["a", "a"], ["1", "1", "1"])
    with pytest.raises(ValueError, match=r"^line 3: group '1' is tagged 'b' here but 'a' earlier: each group \(rule\) "
                                         r"must have one tag \(copying type\)$"):
        clustered_comparison(np.zeros(3), np.ones(3), ["a", "a", "b"], ["1", "1", "1"])
