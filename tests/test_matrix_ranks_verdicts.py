"""The matrix's ranks (ties to 0.01 share the mean of their ranks, X10) and verdicts (X3, X6, X12: p < 0.05 or
> 0.95 in ``required`` seeds, in the direction of the mean difference), on values chosen where a slip shows."""

from __future__ import annotations

from paragen.report.matrix import ranks, verdict


def test_ties_to_two_decimals_and_no_further():
    """80.004 and 80.001 tie at 80.00 (ranks 1 and 2 share 1.5); 79.996 rounds to 80.00 too, so all three share 2;
    79.994 (79.99) is below them. Rounding to 3 decimals or to whole numbers gives other ranks: at 0 decimals
    79.994 would join the tie (all four 2.5), at 3 decimals none would tie."""
    assert ranks({"a": 80.004, "b": 79.994, "c": 80.001, "d": 79.996}) == {"a": 2.0, "c": 2.0, "d": 2.0, "b": 4.0}
    assert ranks({"a": 80.4, "b": 79.6, "c": 70.0}) == {"a": 1.0, "b": 2.0, "c": 3.0}  # 80 vs 80 at 0 decimals


def test_verdicts_at_the_thresholds_and_with_the_mean_difference():
    """p exactly 0.05 is not below 0.05 and p exactly 0.95 not above it; a mean difference of 0 is neither
    direction; two seeds whose deltas (+3, -2.5) average +0.25 and both give p < 0.05: better."""
    assert verdict([{"delta": 1.0, "p_value": 0.05}], 1) == "no difference shown"
    assert verdict([{"delta": -1.0, "p_value": 0.95}], 1) == "no difference shown"
    assert verdict([{"delta": 0.0, "p_value": 0.01}], 1) == "no difference shown"
    assert verdict([{"delta": 1.0, "p_value": 0.049}], 1) == "better"
    assert verdict([{"delta": -1.0, "p_value": 0.951}], 1) == "worse"
    assert verdict([{"delta": 3.0, "p_value": 0.01}, {"delta": -2.5, "p_value": 0.02}], 2) == "better"
    assert verdict([], 1) == ""
