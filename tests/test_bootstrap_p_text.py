"""A bootstrap p is printed no smaller than its resampling can show: 0 of B resamples reads "p = 1/B", with B."""

from paragen.report.comparisons import p_text


def test_none_of_the_resamples_reads_as_their_resolution_never_below_it():
    # 1/1,000 = 0.001 and 1/4,000 = 0.00025, worked by hand; "p < 0.001" would claim what 1,000 draws cannot show
    assert p_text(0.0, 1000) == "p = 0.001 (0 of 1,000 resamples: the smallest p they can show)"
    assert p_text(0.0, 4000) == "p = 0.00025 (0 of 4,000 resamples: the smallest p they can show)"
    assert "<" not in p_text(0.0, 1000) and "≤" not in p_text(0.0, 1000)


def test_a_p_above_the_resolution_is_printed_to_three_decimals():
    assert p_text(0.0123, 1000) == "p = 0.012"
    assert p_text(1.0, 1000) == "p = 1.000"
